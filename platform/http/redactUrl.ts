/**
 * Query names whose value is a credential (or a card), compared without case, `-`, `_` or `.`
 * (`api-token`, `apiToken` and `api_token` are one name). A bracketed name (`api_token[]`,
 * `auth[token]`) is judged by each of its parts.
 */
const SENSITIVE_QUERY_NAMES = new Set([
  'apitoken', 'accesstoken', 'authtoken', 'refreshtoken', 'idtoken', 'token', 'jwt',
  'key', 'apikey', 'xapikey', 'secret', 'clientsecret', 'password', 'passwd', 'pwd',
  'auth', 'authorization', 'bearer', 'credential', 'credentials', 'session', 'sessionid',
  'signature', 'sig', 'card', 'cardnumber', 'number', 'pan', 'cvc', 'cvv',
  // OAuth: an authorization code, a PKCE verifier (RFC 6749, RFC 7636).
  'code', 'codeverifier',
]);

function isSensitiveQueryName(name: string): boolean {
  return name
    .split(/[[\]]+/)
    .some((part) => part !== '' && SENSITIVE_QUERY_NAMES.has(part.toLowerCase().replace(/[-_.]/g, '')));
}

/**
 * An API key by its shape (`csk_key_<16>_<32>`, see modules/identity/credentials.ts), wherever it
 * sits: a query value under any name, a path segment, a header, an error message. `_` may come
 * percent-encoded. The key id is kept (it names the key to revoke, and is no secret); a shorter or
 * longer run after `csk_` is redacted whole. Applying it twice changes nothing more.
 */
const API_KEY_SHAPE = /csk(?:_|%5f)key(?:_|%5f)([0-9a-z]{16})(?:_|%5f)(?:\[REDACTED\]|[0-9a-z]+)|csk(?:_|%5f)[0-9a-z_%]*/gi;

/** The text with every API key it holds replaced; cheap when there is none (one indexOf). */
export function redactApiKeys(text: string): string {
  if (!/csk/i.test(text)) return text;
  return text.replace(API_KEY_SHAPE, (_whole, id: string | undefined) => (id ? `csk_key_${id}_[REDACTED]` : 'csk_[REDACTED]'));
}

/** True for 13–19 digits that pass the Luhn check: what a card number looks like. */
function looksLikeCardNumber(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

const REDACTED_CATCH_PATH = '/hooks/catch/[REDACTED]';

/** Each %XX as the byte it names; malformed escapes are left as they are (this only finds words). */
const percentDecoded = (text: string) => text.replace(/%([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));

/**
 * Whether a path may hold these segments one after another with at least one segment after them
 * (`hooks`, `catch` for a catch URL), read as loosely as any router or proxy on the way could:
 * percent-decoded until nothing changes (the router decodes once; a proxy may decode again), any
 * run of `/` or `\` one separator, `.` segments dropped, any case, anywhere in the path (an
 * absolute-form target starts with the scheme and host). A typo that reaches no route still
 * carries the secret, so it is redacted too: a false alarm costs a log line's detail, a miss a secret.
 */
function mayBeUnder(path: string, start: readonly string[]): boolean {
  let decoded = path;
  for (let round = 0; round < 5 && decoded.includes('%'); round++) {
    const next = percentDecoded(decoded);
    if (next === decoded) break;
    decoded = next;
  }
  const segments = decoded.toLowerCase().split(/[/\\]+/).filter((segment) => segment !== '' && segment !== '.');
  for (let i = 0; i + start.length < segments.length; i++) {
    if (start.every((word, j) => segments[i + j] === word)) return true;
  }
  return false;
}

/** A URL's path, and what follows it (query, fragment). */
function splitPath(url: string): [string, string] {
  const cut = url.search(/[?#]/);
  return cut === -1 ? [url, ''] : [url.slice(0, cut), url.slice(cut)];
}

/** The URL with its path replaced by /hooks/catch/[REDACTED] when the path may name a catch URL. */
function redactCatchPath(url: string): string {
  const [path, rest] = splitPath(url);
  if (path.startsWith('/hooks/catch/')) return REDACTED_CATCH_PATH + rest;
  // Most paths cannot spell one at all: one cheap test before any decoding.
  if (!/%|hooks/i.test(path)) return url;
  return mayBeUnder(path, ['hooks', 'catch']) ? REDACTED_CATCH_PATH + rest : url;
}

/**
 * The URL as a log line may show it: catch-URL keys (the URL is the secret), API keys by their
 * shape anywhere, the values of credential-like query names (the legacy `api_token` and its
 * spellings), and anything shaped like a card number are replaced by [REDACTED].
 */
export function redactUrl(url: string): string {
  return redactApiKeys(redactCatchPath(url))
    .replace(/([?&])([^=&#]*)=([^&#]*)/g, (whole, sep: string, key: string) => {
      let name = key;
      try {
        name = decodeURIComponent(key);
      } catch {
        // A malformed escape: judge the raw key.
      }
      return isSensitiveQueryName(name) ? `${sep}${key}=[REDACTED]` : whole;
    })
    .replace(/\d(?:[ -]?\d){12,18}/g, (run) => (looksLikeCardNumber(run.replace(/\D/g, '')) ? '[REDACTED]' : run));
}

/**
 * The static start of a route pattern, up to its first parameter, as lower-case segments
 * (`/receipts/:token/invoice.pdf` gives `receipts`): the part before the secret.
 */
export function secretPathStart(pattern: string): string[] {
  const segments: string[] = [];
  for (const segment of pattern.split('/')) {
    if (segment === '') continue;
    if (segment.startsWith(':') || segment.includes('*')) break;
    segments.push(segment.toLowerCase());
  }
  return segments;
}

/**
 * The URL as a log line of a route whose path is itself a secret (a receipt, a catch URL, an
 * invitation) may show it. A request that reached such a route is logged as the route's pattern
 * with each parameter [REDACTED]; one that reached no route is redacted after the static start of
 * any such route it may name (read loosely, as the catch URL is), since a mistyped secret link
 * still carries the secret. Routes opt in with `config: { secretPath: true }`.
 */
export function redactSecretPath(url: string, route: { pattern: string | null; secret: boolean; matched: boolean }, secretStarts: readonly (readonly string[])[]): string {
  const [path, rest] = splitPath(url);
  if (route.secret && route.pattern) return redactUrl(route.pattern.replace(/:[^/]+|\*/g, '[REDACTED]') + rest);
  if (!route.matched) {
    const start = secretStarts.find((words) => words.length > 0 && mayBeUnder(path, words));
    if (start) return redactUrl(`/${start.join('/')}/[REDACTED]${rest}`);
  }
  return redactUrl(url);
}
