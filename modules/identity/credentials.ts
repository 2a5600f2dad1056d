import { hash, timingSafeEqual } from 'node:crypto';
import { customAlphabet } from 'nanoid';

// Alphanumeric only, so a token survives copy-paste, URLs and shell quoting unchanged.
const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const keyId = customAlphabet(alphabet, 16);
/** 32 characters of 62 symbols: about 190 bits. */
const keySecret = customAlphabet(alphabet, 32);

const PREFIX = 'csk';

export type GeneratedApiKey = { id: string; token: string; secretHash: string };

/** `csk_<id>_<secret>`: the id finds the stored hash, the secret is checked against it. */
export function generateApiKey(): GeneratedApiKey {
  const id = `key_${keyId()}`;
  const secret = keySecret();
  return { id, token: `${PREFIX}_${id}_${secret}`, secretHash: hashSecret(secret) };
}

export function parseApiKey(token: string): { id: string; secret: string } | null {
  const match = /^csk_(key_[0-9A-Za-z]{16})_([0-9A-Za-z]{32})$/.exec(token);
  return match ? { id: match[1]!, secret: match[2]! } : null;
}

/** A fast hash is right here: the secret is random and long, so there is nothing to brute-force. */
export function hashSecret(secret: string): string {
  return hash('sha256', secret, 'hex');
}

/** The stored hex hash as bytes, for secretMatches (a caller checking often can keep these). */
export function hashBytes(storedHash: string): Buffer {
  return Buffer.from(storedHash, 'hex');
}

export function secretMatches(secret: string, storedHash: string | Buffer): boolean {
  const actual = hash('sha256', secret, 'buffer');
  const expected = typeof storedHash === 'string' ? hashBytes(storedHash) : storedHash;
  return actual.length === expected.length && timingSafeEqual(actual, expected);
}
