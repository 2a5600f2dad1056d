import Sqids from 'sqids';

// Own alphabet (a shuffle of Sqids' default) so an offer key never decodes as a product's.
const sqids = new Sqids({ minLength: 8, alphabet: 'k3G7QAe51FCsPW92uEOyq4Bg6Sp8YzVTmnU0liwDdHXLajZrfxNhobJIRcMvKt' });

export const encodeOfferId = (id: number): string => sqids.encode([id]);

/** The integer behind a route key, or null when it is not one of ours (only canonical encodings count). */
export function decodeOfferId(key: string): number | null {
  if (!/^[A-Za-z0-9]{8,32}$/.test(key)) return null;
  const [id] = sqids.decode(key);
  return id !== undefined && sqids.encode([id]) === key ? id : null;
}
