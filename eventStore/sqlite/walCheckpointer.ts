import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';

/** What `PRAGMA wal_checkpoint(PASSIVE)` answered: WAL frames, and how many of them are in the database file. */
export type CheckpointResult = { busy: number; log: number; checkpointed: number };

export type WalCheckpointer = {
  /** Asks for a PASSIVE checkpoint, unless one is under way. */
  request(): void;
  close(): Promise<void>;
};

/*
 * Plain CommonJS, evaluated in the worker: no file of ours to load there, so it runs the same
 * from the TypeScript sources, under vitest and from the bundle in dist/.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const Database = require(workerData.driver);
const db = new Database(workerData.file);
parentPort.on('message', (message) => {
  if (message === 'close') {
    db.close();
    parentPort.close();
    return;
  }
  try {
    const [row] = db.pragma('wal_checkpoint(PASSIVE)');
    parentPort.postMessage(row);
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.message || error) });
  }
});
`;

/**
 * Checkpoints the WAL of `file` from a thread of its own, on its own connection: a checkpoint
 * copies the WAL's pages into the database file and syncs both, which on the committing
 * connection (SQLite's autocheckpoint) stalled the event loop for tens of milliseconds a few
 * times a second under a catch URL's load. PASSIVE waits for no reader or writer: commits go on
 * meanwhile, and the WAL starts over once a checkpoint has copied it all. `onResult` gets each
 * answer, null when the thread failed.
 */
export function startWalCheckpointer(file: string, onResult: (result: CheckpointResult | null) => void): WalCheckpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3');
  const worker = new Worker(WORKER, { eval: true, workerData: { file, driver } });
  // A store left open (a test, a CLI command) must not keep the process alive for this thread.
  worker.unref();
  let inFlight = false;
  let closed = false;
  const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
  worker.on('message', (message: CheckpointResult | { error: string }) => {
    inFlight = false;
    onResult('error' in message ? null : message);
  });
  // Should the thread fail (it cannot load the driver), the store checkpoints itself.
  worker.on('error', () => {
    closed = true;
    onResult(null);
  });
  return {
    request() {
      if (inFlight || closed) return;
      inFlight = true;
      worker.postMessage('check');
    },
    async close() {
      if (!closed) {
        closed = true;
        // Held by the thread again until it has closed its connection, or the process could end first.
        worker.ref();
        worker.postMessage('close');
      }
      await exited;
    },
  };
}
