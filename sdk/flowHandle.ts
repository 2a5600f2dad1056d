import type { FlowError, FlowEvent, SessionView, SubscriptionRef } from './protocol.ts';

export type FlowResult =
  /** `subscription`: what a recurring plan's purchase made (null for a one-time sale). */
  | { status: 'complete'; session: SessionView; invoice?: unknown; subscription: SubscriptionRef | null }
  | { status: 'cancel'; session?: SessionView }
  | { status: 'closed'; session?: SessionView }
  /** No checkout could be offered (it did not load, or the server refused the session); the frame shows the buyer why. */
  | { status: 'error'; error: FlowError; session?: SessionView };

/** What awaiting a flow gives; it never rejects (cancel, close and errors are results). */
export type FlowHandle = PromiseLike<FlowResult> & {
  readonly id: string;
  /** Every lifecycle event from the first one; each `for await` gets all of them, then ends with the flow. */
  readonly events: AsyncIterable<FlowEvent>;
  /** The result once the flow has ended, else null. */
  readonly result: FlowResult | null;
  catch<T = never>(onRejected?: ((reason: unknown) => T | PromiseLike<T>) | null): Promise<FlowResult | T>;
  finally(onFinally?: (() => void) | null): Promise<FlowResult>;
  /** Closes the frame (modal, slideout, bottom sheet or embedded); resolves `closed` unless already ended, or `complete` if the server reports the session paid. A payment in flight is waited for. */
  close(): void;
};

/** The state behind a handle: the SDK pushes events and ends it; the handle only reads. */
export type FlowControl = {
  handle: FlowHandle;
  push(event: FlowEvent): void;
  end(result: FlowResult): void;
  readonly ended: boolean;
};

export function createFlow(id: string, onClose: () => void): FlowControl {
  const buffer: FlowEvent[] = [];
  let finalResult: FlowResult | null = null;
  let wake: Array<() => void> = [];
  let resolve!: (r: FlowResult) => void;
  const promise = new Promise<FlowResult>((r) => (resolve = r));

  const notify = () => {
    const waiting = wake;
    wake = [];
    for (const w of waiting) w();
  };

  const events: AsyncIterable<FlowEvent> = {
    [Symbol.asyncIterator](): AsyncIterator<FlowEvent> {
      let index = 0;
      let stopped = false;
      return {
        async next(): Promise<IteratorResult<FlowEvent>> {
          for (;;) {
            if (stopped) return { value: undefined, done: true };
            if (index < buffer.length) return { value: buffer[index++]!, done: false };
            if (finalResult) return { value: undefined, done: true };
            await new Promise<void>((r) => wake.push(r));
          }
        },
        async return(): Promise<IteratorResult<FlowEvent>> {
          stopped = true;
          return { value: undefined, done: true };
        },
      };
    },
  };

  const handle: FlowHandle = {
    id,
    events,
    get result() {
      return finalResult;
    },
    then: (onFulfilled, onRejected) => promise.then(onFulfilled, onRejected),
    catch: (onRejected) => promise.catch(onRejected),
    finally: (onFinally) => promise.finally(onFinally),
    close: onClose,
  };

  return {
    handle,
    get ended() {
      return finalResult !== null;
    },
    push(event) {
      if (finalResult) return;
      buffer.push(event);
      notify();
    },
    end(result) {
      if (finalResult) return;
      finalResult = result;
      resolve(result);
      notify();
    },
  };
}
