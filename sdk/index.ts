/**
 * The script served at /sdk.js: builds the SDK against the origin it was loaded from, replaces
 * the queueing stub (`window.sdk = window.sdk || {q: []…}`) and runs every queued call in order.
 */
import { createSdkCore, type Sdk } from './createSdk.ts';

type QueuedCall = [method: string, args: ArrayLike<unknown>, resolve?: (v: unknown) => void, reject?: (e: unknown) => void];
type Stub = { q?: QueuedCall[] & { push?: (...items: QueuedCall[]) => number } };

declare global {
  interface Window {
    sdk: Sdk | Stub;
  }
}

const script = document.currentScript as HTMLScriptElement | null;
const baseUrl = script?.src ? new URL(script.src).origin : location.origin;
const stub = (window.sdk ?? {}) as Stub;

if (!('present' in stub && 'version' in stub)) {
  const { sdk, startAttributes } = createSdkCore({ baseUrl });
  const run = ([method, args, resolve, reject]: QueuedCall) => {
    try {
      const fn = (sdk as unknown as Record<string, (...a: unknown[]) => unknown>)[method];
      if (typeof fn !== 'function') throw new TypeError(`sdk.${method} is not a function`);
      const value = fn.apply(sdk, Array.from(args));
      resolve?.(value);
    } catch (error) {
      if (reject) reject(error);
      else console.error(error);
    }
  };
  window.sdk = sdk;
  const queue = stub.q ?? [];
  // Someone holding the stub keeps working: later pushes run at once.
  queue.push = (...items: QueuedCall[]) => {
    items.forEach(run);
    return 0;
  };
  for (const call of queue.splice(0)) run(call);
  // After the queue, so an identify() queued before load applies to mounts declared in the HTML.
  startAttributes();
}
