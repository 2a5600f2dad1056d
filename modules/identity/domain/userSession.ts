import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, notFound } from '../../../platform/domain/index.ts';

/**
 * A signed-in person's server-side session, one stream each. Only the SHA-256 of the session
 * secret is recorded: the cookie holds the secret, the log can never reproduce it.
 */
export type SignInMethod = 'password' | 'passkey' | 'invitation';

export type UserSessionEvent =
  | DomainEvent<
      'SignedIn',
      {
        session_id: string;
        user_id: string;
        secret_hash: string;
        method: SignInMethod;
        ip: string | null;
        user_agent: string | null;
        signed_in_at: number;
        /** Unix seconds after which the session ends whatever its activity. */
        absolute_expires_at: number;
        /** Seconds of inactivity after which the session ends. */
        idle_timeout: number;
      }
    >
  | DomainEvent<'SessionTouched', { at: number }>
  | DomainEvent<'SignedOut', { at: number; reason: 'sign_out' | 'rotated' | 'revoked'; by: string | null }>;

export type UserSessionCommand =
  | {
      type: 'SignIn';
      sessionId: string;
      userId: string;
      secretHash: string;
      method: SignInMethod;
      ip: string | null;
      userAgent: string | null;
      absoluteTtl: number;
      idleTimeout: number;
      now: number;
    }
  | { type: 'Touch'; now: number }
  | { type: 'SignOut'; reason: 'sign_out' | 'rotated' | 'revoked'; by: string | null; now: number };

export type UserSessionState =
  | { status: 'none' }
  | {
      status: 'active' | 'ended';
      id: string;
      userId: string;
      secretHash: string;
      method: SignInMethod;
      ip: string | null;
      userAgent: string | null;
      signedInAt: number;
      lastSeenAt: number;
      absoluteExpiresAt: number;
      idleTimeout: number;
    };

export const userSessionStream = (id: string) => `user_session-${id}`;

/** Whether the session admits a request at `now` (Unix seconds). */
export type KnownSession = Exclude<UserSessionState, { status: 'none' }>;

export function sessionLive(state: UserSessionState, now: number): state is KnownSession {
  return state.status === 'active' && now < state.absoluteExpiresAt && now < state.lastSeenAt + state.idleTimeout;
}

export const userSessionDecider: Decider<UserSessionState, UserSessionCommand, UserSessionEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'SignedIn': {
        const d = event.data;
        return {
          status: 'active',
          id: d.session_id,
          userId: d.user_id,
          secretHash: d.secret_hash,
          method: d.method,
          ip: d.ip,
          userAgent: d.user_agent,
          signedInAt: d.signed_in_at,
          lastSeenAt: d.signed_in_at,
          absoluteExpiresAt: d.absolute_expires_at,
          idleTimeout: d.idle_timeout,
        };
      }
      case 'SessionTouched':
        return state.status === 'none' ? state : { ...state, lastSeenAt: event.data.at };
      case 'SignedOut':
        return state.status === 'none' ? state : { ...state, status: 'ended' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'SignIn':
        if (state.status !== 'none') throw conflict('session_exists', 'The session already exists.');
        return {
          type: 'SignedIn',
          data: {
            session_id: command.sessionId,
            user_id: command.userId,
            secret_hash: command.secretHash,
            method: command.method,
            ip: command.ip,
            user_agent: command.userAgent,
            signed_in_at: command.now,
            absolute_expires_at: command.now + command.absoluteTtl,
            idle_timeout: command.idleTimeout,
          },
        };
      case 'Touch':
        if (!sessionLive(state, command.now)) return [];
        return { type: 'SessionTouched', data: { at: command.now } };
      case 'SignOut':
        if (state.status === 'none') throw notFound('Session');
        if (state.status === 'ended') return [];
        return { type: 'SignedOut', data: { at: command.now, reason: command.reason, by: command.by } };
    }
  },
};

/**
 * Failed sign-ins, one stream per normalised email's hash (known or not, so the log does not
 * tell which emails have accounts by where failures land). An audit trail, never consulted to
 * decide: the rate limiter does the refusing.
 */
export type SignInFailedEvent = DomainEvent<
  'SignInFailed',
  { user_id: string | null; method: SignInMethod; reason: 'unknown_email' | 'wrong_password' | 'no_password' | 'passkey_invalid'; ip: string | null; at: number }
>;
export const signInAttemptsStream = (emailHash: string) => `sign_in_attempts-${emailHash}`;
