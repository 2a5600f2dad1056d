import { useEffect, useState } from 'preact/hooks';
import { api, setCsrfToken } from './api.ts';
import { LOCALE } from './locale.ts';
import type { z } from 'zod';
import type { SessionAnswerSchema } from '../../modules/identity/index.ts';

/** GET /manage/api/session's answer (and every sign-in's). */
export type SessionAnswer = z.infer<typeof SessionAnswerSchema>;
export type Organization = SessionAnswer['organizations'][number];
export type Role = Organization['role'];

/** unknown: not asked yet; null: signed out. */
type State = SessionAnswer | null | undefined;

let current: State = undefined;
const listeners = new Set<() => void>();

/** Keeps the answer (and its CSRF token, in memory only) and redraws whoever uses it. */
export function setSession(answer: SessionAnswer | null): void {
  current = answer;
  setCsrfToken(answer?.csrf_token ?? null);
  for (const listener of listeners) listener();
}

export function useSession(): State {
  const [, redraw] = useState(0);
  const drawn = current;
  useEffect(() => {
    const listener = () => redraw((n) => n + 1);
    listeners.add(listener);
    // An answer that arrived between drawing and listening.
    if (current !== drawn) listener();
    return () => void listeners.delete(listener);
  }, []);
  return current;
}

let booting: Promise<SessionAnswer | null> | null = null;

/** The first session probe, started as the script loads (main.tsx), before anything is drawn. */
export function bootSession(): Promise<SessionAnswer | null> {
  booting ??= loadSession();
  return booting;
}

/** The session as the service has it now; null when signed out. */
export async function loadSession(): Promise<SessionAnswer | null> {
  try {
    const answer = await api.get<SessionAnswer>('/session', undefined, { allowUnauthenticated: true });
    setSession(answer);
    return answer;
  } catch (error) {
    if ((error as { status?: number }).status === 401) {
      setSession(null);
      return null;
    }
    throw error;
  }
}

export async function switchOrganization(organizationId: string): Promise<void> {
  setSession(await api.put<SessionAnswer>('/session/organization', { organization_id: organizationId }));
}

export async function signOut(): Promise<void> {
  try {
    await api.post('/sign-out', undefined, { allowUnauthenticated: true });
  } finally {
    setSession(null);
  }
}

/** The organization's timezone (dates show in it), else the browser's. */
export function organizationTimezone(): string {
  return current?.current_organization?.timezone ?? new Intl.DateTimeFormat(LOCALE).resolvedOptions().timeZone;
}
