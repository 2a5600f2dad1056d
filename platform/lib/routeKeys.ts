import Sqids from 'sqids';

/**
 * Public route keys of products, plans and offers: Sqids over the integer ids `allocateId` hands
 * out. The alphabet is a fixed shuffle, so keys do not read as counters (1 → `xY3kQ9`, not `b`);
 * changing it or the length would change every published key, so both are frozen here.
 */
const ALPHABET = 'k3G7QAe51FCsPW92uEOyq4Bg6Sp8YzVTmnU0liwDdHXLajZrfxNMbRJIvtcoKh';
const MIN_LENGTH = 6;

const sqids = new Sqids({ alphabet: ALPHABET, minLength: MIN_LENGTH });

export function encodeRouteKey(id: number): string {
  if (!Number.isSafeInteger(id) || id < 0) throw new Error(`route keys encode non-negative integers, got ${id}`);
  return sqids.encode([id]);
}

/**
 * The integer behind a route key, or null when the string is not one of ours: only the
 * canonical encoding of exactly one number counts, so `decode` never maps two strings to one id.
 */
export function decodeRouteKey(key: string): number | null {
  if (key.length < MIN_LENGTH || key.length > 32) return null;
  for (const ch of key) if (!ALPHABET.includes(ch)) return null;
  const numbers = sqids.decode(key);
  if (numbers.length !== 1) return null;
  const id = numbers[0]!;
  return Number.isSafeInteger(id) && sqids.encode([id]) === key ? id : null;
}
