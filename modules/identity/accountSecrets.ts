import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';
import { customAlphabet } from 'nanoid';

// Alphanumeric, as API keys: survives URLs, cookies and copy-paste unchanged.
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
/** 32 characters of 62 symbols: about 190 bits. */
const secret32 = customAlphabet(alphabet, 32);
const id16 = customAlphabet(alphabet, 16);

export const sha256Hex = (text: string) => createHash('sha256').update(text).digest('hex');

/** `<user id>.<secret>`: the id finds the user, the secret's hash is checked against the invitation. */
export function generateInvitationToken(userId: string): { token: string; tokenHash: string } {
  const secret = secret32();
  return { token: `${userId}.${secret}`, tokenHash: sha256Hex(secret) };
}

export function parseInvitationToken(token: string): { userId: string; tokenHash: string } | null {
  const match = /^(usr_[0-9a-z]{1,40})\.([0-9A-Za-z]{32})$/.exec(token);
  return match ? { userId: match[1]!, tokenHash: sha256Hex(match[2]!) } : null;
}

/** `<invitation id>.<secret>` for a membership invitation: the id finds its stream, the secret's hash is checked. */
export function generateMembershipInvitationToken(invitationId: string): { token: string; tokenHash: string } {
  const secret = secret32();
  return { token: `${invitationId}.${secret}`, tokenHash: sha256Hex(secret) };
}

export function parseMembershipInvitationToken(token: string): { invitationId: string; tokenHash: string } | null {
  const match = /^(inv_[0-9a-f]{24})\.([0-9A-Za-z]{32})$/.exec(token);
  return match ? { invitationId: match[1]!, tokenHash: sha256Hex(match[2]!) } : null;
}

/** The session cookie's value `<session id>.<secret>`; only the secret's hash is recorded. */
export function generateSessionCredential(): { sessionId: string; cookieValue: string; secretHash: string } {
  const sessionId = `ses_${id16()}`;
  const secret = secret32();
  return { sessionId, cookieValue: `${sessionId}.${secret}`, secretHash: sha256Hex(secret) };
}

export function parseSessionCookie(value: string): { sessionId: string; secret: string } | null {
  const match = /^(ses_[0-9A-Za-z]{16})\.([0-9A-Za-z]{32})$/.exec(value);
  return match ? { sessionId: match[1]!, secret: match[2]! } : null;
}

export function secretHashMatches(secret: string, storedHex: string): boolean {
  const actual = createHash('sha256').update(secret).digest();
  const expected = Buffer.from(storedHex, 'hex');
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}

/**
 * The CSRF token of a session: an HMAC of a fixed label keyed by the session secret, so it needs
 * no storage, changes with every session, and cannot be made without the cookie's secret.
 */
export function csrfTokenFor(cookieValue: string): string {
  const parsed = parseSessionCookie(cookieValue);
  return createHmac('sha256', parsed?.secret ?? '').update('csrf').digest('base64url');
}

export function csrfTokenMatches(cookieValue: string, given: string): boolean {
  const expected = Buffer.from(csrfTokenFor(cookieValue));
  const actual = Buffer.from(given);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** argon2id with the library's defaults (OWASP's minimum: 19 MiB, 2 passes, 1 lane). */
export const hashPassword = (password: string) => argon2Hash(password);

export async function passwordMatches(storedHash: string, password: string): Promise<boolean> {
  try {
    return await argon2Verify(storedHash, password);
  } catch {
    return false;
  }
}

let dummy: Promise<string> | undefined;
/**
 * A hash verified when the email is unknown or has no password, so that answer costs what a wrong
 * password costs and timing does not tell which emails have accounts.
 */
export function dummyPasswordHash(): Promise<string> {
  dummy ??= argon2Hash(secret32());
  return dummy;
}
