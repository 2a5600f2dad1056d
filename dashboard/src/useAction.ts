import { useState } from 'preact/hooks';
import type { ApiError } from './api.ts';
import { asApiError } from './pages/pageKit.tsx';

export type ActionOptions = {
  /** A failure that is no error to show (a cancelled passkey prompt): busy clears, no error is kept. */
  ignore?: (error: unknown) => boolean;
  /** Busy stays set after success: the page navigates away, its buttons stay disabled till it does. */
  keepBusy?: boolean;
};

/**
 * The states an action drives (useState's setters, or plain functions in a test). `setFailed`
 * names the failed action, so its error shows beside its own button.
 */
export type ActionSetters<K> = { setBusy: (kind: K | null) => void; setError: (error: ApiError | null) => void; setFailed?: (kind: K | null) => void };

/**
 * Runs a write with `kind` busy; a failure is kept as an ApiError for the form. It never throws:
 * the answer is `work`'s value, or undefined when it failed.
 */
export async function runAction<K, T>(state: ActionSetters<K>, kind: K, work: () => Promise<T>, options: ActionOptions = {}): Promise<T | undefined> {
  state.setBusy(kind);
  state.setError(null);
  state.setFailed?.(null);
  try {
    const value = await work();
    if (!options.keepBusy) state.setBusy(null);
    return value;
  } catch (e) {
    if (!options.ignore?.(e)) {
      state.setError(asApiError(e));
      state.setFailed?.(kind);
    }
    state.setBusy(null);
    return undefined;
  }
}

export type Action<K extends string> = {
  /** Which action is running ('save', 'publish', a row's id…), or null. */
  busy: K | null;
  /** The last action's failure, for <Field>, <OtherErrors> or <ErrorNotice>. */
  error: ApiError | null;
  /** Which action failed last (null when the last one did not). */
  failed: K | null;
  /**
   * The last failure if it was one of these actions', else null: a form shows errorOf('save'),
   * a button its own (<Button error={errorOf('publish')}>), each where the person looks.
   */
  errorOf: (...kinds: K[]) => ApiError | null;
  run: <T>(kind: K, work: () => Promise<T>, options?: ActionOptions) => Promise<T | undefined>;
};

/** The busy and error states of a page's writes, and `run` to start one (see runAction). */
export function useAction<K extends string = string>(): Action<K> {
  const [busy, setBusy] = useState<K | null>(null);
  const [error, setError] = useState<ApiError | null>(null);
  const [failed, setFailed] = useState<K | null>(null);
  return {
    busy,
    error,
    failed,
    errorOf: (...kinds) => (failed !== null && kinds.includes(failed) ? error : null),
    run: (kind, work, options) => runAction({ setBusy, setError, setFailed }, kind, work, options),
  };
}
