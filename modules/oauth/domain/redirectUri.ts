const LOOPBACK = new Set(['127.0.0.1', '[::1]', 'localhost']);

/**
 * Why a redirect URI cannot be registered, or null: absolute, no fragment, no user info, https
 * (plain http only to a loopback address, for native and development apps), as the OAuth 2.0
 * Security BCP asks. The authorization server matches it exactly, character for character.
 */
export function redirectUriProblem(value: string): string | null {
  if (value.length > 2000) return 'must be at most 2000 characters';
  const url = URL.parse(value);
  if (!url) return 'must be an absolute URL';
  if (value.includes('#')) return 'must not have a fragment';
  if (url.username !== '' || url.password !== '') return 'must not carry user info';
  if (url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK.has(url.hostname))) return null;
  return 'must be https (plain http only for 127.0.0.1, [::1] or localhost)';
}
