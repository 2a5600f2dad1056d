import { createHash, randomBytes } from 'node:crypto';
import type { GrantSource } from './domain/benefitTypes.ts';

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

export function newBenefitId(): string {
  let id = 'ben_';
  for (const b of randomBytes(20)) id += ALPHABET[b % ALPHABET.length];
  return id;
}

/**
 * The grant's id, from the benefit and what granted it: a subscriber that runs again after a
 * crash, or a subscription entitled again, appends to the one stream of that grant.
 */
export function grantIdFor(benefitId: string, source: GrantSource): string {
  return `bgr_${createHash('sha256').update(`${benefitId}|${source.type}|${source.id}`).digest('hex').slice(0, 32)}`;
}
