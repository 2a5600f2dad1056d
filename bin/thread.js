// A worker thread's bootstrap in a development checkout: loader hooks belong to the thread that
// registers them, so tsx is registered here before the TypeScript entry named in workerData is
// imported. The compiled service (dist/) starts its threads from their JavaScript directly.
import { workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
await import(workerData.entry);
