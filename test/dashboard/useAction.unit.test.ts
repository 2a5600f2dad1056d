import { describe, expect, it } from 'vitest';
import { ApiError } from '../../dashboard/src/api.ts';
import { runAction } from '../../dashboard/src/useAction.ts';

/** The states a page would draw, as useAction's useState would hold them. */
function page() {
  const state = { busy: null as string | null, error: null as ApiError | null };
  return { state, setters: { setBusy: (b: string | null) => void (state.busy = b), setError: (e: ApiError | null) => void (state.error = e) } };
}

/** A work the test finishes by hand, to look at the states while it runs. */
function pending<T>() {
  let resolve!: (v: T) => void;
  let reject!: (e: unknown) => void;
  const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
  return { promise, resolve, reject };
}

describe("useAction's runAction", () => {
  it('marks the action busy and clears the last error while it runs, then answers its value and clears busy', async () => {
    const { state, setters } = page();
    state.error = new ApiError(422, 'validation_failed', 'Earlier failure.');
    const work = pending<{ id: string }>();
    const done = runAction(setters, 'save', () => work.promise);
    expect(state).toEqual({ busy: 'save', error: null });
    work.resolve({ id: 'p_1' });
    expect(await done).toEqual({ id: 'p_1' });
    expect(state).toEqual({ busy: null, error: null });
  });

  it('keeps the ApiError of a failure for the fields, clears busy and answers undefined without throwing', async () => {
    const { state, setters } = page();
    const failure = new ApiError(422, 'validation_failed', 'The name is required.', { name: ['The name is required.'] });
    expect(await runAction(setters, 'publish', () => Promise.reject(failure))).toBeUndefined();
    expect(state.busy).toBeNull();
    expect(state.error).toBe(failure);
    expect(state.error?.field('name')).toBe('The name is required.');
  });

  it('turns any other thrown value into an ApiError a form can show', async () => {
    const { state, setters } = page();
    await runAction(setters, 'save', async () => {
      throw new TypeError('Failed to fetch');
    });
    expect(state.error).toBeInstanceOf(ApiError);
    expect(state.error).toMatchObject({ status: 0, code: 'client_error', message: 'Failed to fetch', fields: {} });
  });

  it('shows no error for a failure it is told to ignore (a cancelled passkey prompt), and clears busy', async () => {
    const { state, setters } = page();
    const cancel = Object.assign(new Error('The operation either timed out or was not allowed.'), { name: 'NotAllowedError' });
    const ignore = (e: unknown) => (e as Error).name === 'NotAllowedError';
    expect(await runAction(setters, 'passkey', () => Promise.reject(cancel), { ignore })).toBeUndefined();
    expect(state).toEqual({ busy: null, error: null });
    // Only that failure: another one still shows.
    await runAction(setters, 'passkey', () => Promise.reject(new ApiError(400, 'passkey_failed', 'Unknown passkey.')), { ignore });
    expect(state.error?.message).toBe('Unknown passkey.');
  });

  it('keeps busy after a success when told to (the page navigates away), but not after a failure', async () => {
    const { state, setters } = page();
    await runAction(setters, 'password', async () => 'signed in', { keepBusy: true });
    expect(state).toEqual({ busy: 'password', error: null });
    await runAction(setters, 'password', () => Promise.reject(new ApiError(401, 'invalid_credentials', 'Wrong email or password.')), { keepBusy: true });
    expect(state.busy).toBeNull();
    expect(state.error?.message).toBe('Wrong email or password.');
  });

  it('names the action a kept error belongs to, so its button shows it and the form does not', async () => {
    const failed = { kind: null as string | null };
    const { state, setters } = page();
    const withFailed = { ...setters, setFailed: (k: string | null) => void (failed.kind = k) };
    await runAction(withFailed, 'publish', () => Promise.reject(new ApiError(409, 'offer_archived', 'An archived offer cannot be published again.')));
    expect(failed.kind).toBe('publish');
    expect(state.error?.message).toBe('An archived offer cannot be published again.');
    // The next action clears it, and a success leaves none.
    await runAction(withFailed, 'save', async () => 'saved');
    expect(failed.kind).toBeNull();
  });
});
