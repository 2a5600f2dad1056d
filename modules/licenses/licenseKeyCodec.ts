import { createHash, randomBytes } from 'node:crypto';
import { secretBox, type SecretBox } from '../../platform/lib/index.ts';

/** Crockford's base32: no I, L, O or U, so a key read aloud or retyped survives. */
const ALPHABET = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';
const GROUPS = 7;
const GROUP_LENGTH = 4;

/** `n` characters of Crockford base32, 5 random bits each. */
export function randomCrockford(n: number): string {
  const bytes = randomBytes(n);
  let out = '';
  // 256 is a multiple of 32: the low 5 bits of a random byte are uniform.
  for (let i = 0; i < n; i++) out += ALPHABET[bytes[i]! & 31];
  return out;
}

/**
 * A new key: the benefit's prefix, then 7 groups of 4 characters (140 random bits), e.g.
 * `APP-7K2Q-M3XD-…`.
 */
export function generateLicenseKey(prefix: string | null): string {
  const body = randomCrockford(GROUPS * GROUP_LENGTH);
  const groups: string[] = [];
  for (let i = 0; i < body.length; i += GROUP_LENGTH) groups.push(body.slice(i, i + GROUP_LENGTH));
  return [...(prefix ? [prefix] : []), ...groups].join('-');
}

/**
 * What a key is known by, whatever the buyer typed: case, spaces and dashes ignored, and the
 * letters Crockford reads as digits (O as 0, I and L as 1) taken as those digits.
 */
export function normalizeLicenseKey(key: string): string {
  return key
    .toUpperCase()
    .replace(/[\s-]+/g, '')
    .replace(/O/g, '0')
    .replace(/[IL]/g, '1');
}

/** The hash a key is found by: SHA-256 suffices for a secret of 140 random bits (no guessing to slow down). */
export const licenseKeyHash = (key: string) => createHash('sha256').update(normalizeLicenseKey(key), 'utf8').digest('hex');

/** The prefix and the last group, enough for a seller to tell keys apart in a list. */
export function displayKey(key: string, prefix: string | null): string {
  const last = key.slice(-GROUP_LENGTH);
  return prefix ? `${prefix}-…-${last}` : `…-${last}`;
}

/** A grant has one key: its id derived from the grant's, so a subscriber run again finds it. */
export const licenseKeyIdFor = (grantId: string) => `lk_${createHash('sha256').update(`license_key:${grantId}`, 'utf8').digest('hex').slice(0, 24)}`;

export const newInstanceId = () => `lki_${randomCrockford(20).toLowerCase()}`;

export const licenseKeyBox = (dataKey: Uint8Array): SecretBox => secretBox(dataKey, 'commerce license keys');
