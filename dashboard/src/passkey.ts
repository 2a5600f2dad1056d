/**
 * WebAuthn ceremonies through @simplewebauthn/browser (the server side is @simplewebauthn/server):
 * the options come from the service as JSON, the credential goes back as JSON.
 */
import { browserSupportsWebAuthn, startAuthentication, startRegistration } from '@simplewebauthn/browser';
import { api } from './api.ts';
import type { SessionAnswer } from './session.ts';

type Options = { options: Record<string, unknown>; challenge_token: string };

export const passkeysSupported = (): boolean => browserSupportsWebAuthn();

/** A cancelled or timed-out browser prompt: not an error worth a red box. */
export function isPasskeyCancel(error: unknown): boolean {
  const name = (error as { name?: string; cause?: { name?: string } } | null)?.name;
  const cause = (error as { cause?: { name?: string } } | null)?.cause?.name;
  return name === 'NotAllowedError' || cause === 'NotAllowedError' || name === 'AbortError';
}

export async function signInWithPasskey(): Promise<SessionAnswer> {
  const { options, challenge_token } = await api.post<Options>('/sign-in/passkey/options', {}, { allowUnauthenticated: true });
  const response = await startAuthentication({ optionsJSON: options as never });
  return api.post<SessionAnswer>('/sign-in/passkey', { challenge_token, response }, { allowUnauthenticated: true });
}

export async function acceptInvitationWithPasskey(token: string, name?: string): Promise<SessionAnswer> {
  const { options, challenge_token } = await api.post<Options>('/invitations/passkey/options', { token }, { allowUnauthenticated: true });
  const response = await startRegistration({ optionsJSON: options as never });
  return api.post<SessionAnswer>('/invitations/passkey', { token, challenge_token, response, ...(name ? { name } : {}) }, { allowUnauthenticated: true });
}

/** A passkey added while signed in (Settings). */
export async function registerPasskey(name?: string): Promise<void> {
  const { options, challenge_token } = await api.post<Options>('/passkeys/options', {});
  const response = await startRegistration({ optionsJSON: options as never });
  await api.post('/passkeys', { challenge_token, response, ...(name ? { name } : {}) });
}
