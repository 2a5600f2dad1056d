import { HttpError } from './errors.ts';

/**
 * How deeply a request body may nest objects and arrays (`{}` and `[]` count one level each).
 * Without a limit a body a few thousand levels deep is accepted and then breaks what reads it:
 * SQLite's JSON functions stop at 1000 levels (the read model's indexes parse every document, so
 * the projection would fail on it for ever) and JSON.stringify overflows the stack near 5000.
 * MongoDB refuses documents deeper than 100, and a projection wraps a payload in a few levels of
 * its own, so 64 leaves room on every backend and far more than any real sender nests.
 */
export const MAX_JSON_DEPTH = 64;

export const jsonTooDeep = () =>
  new HttpError(400, 'body_too_deep', `The request body is nested more than ${MAX_JSON_DEPTH} levels deep.`);

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/**
 * True when the JSON text nests deeper than `limit`: one pass over the raw text, counting
 * brackets outside strings, before it is parsed (a check of the parsed value would be a second
 * walk, and a recursive one could itself overflow). Strings are skipped with indexOf, so a long
 * string costs little more than its search. Malformed text is not judged here: the parser that
 * follows refuses it.
 */
export function exceedsJsonDepth(text: string, limit = MAX_JSON_DEPTH): boolean {
  // Fewer characters than the limit cannot open more levels than it.
  if (text.length <= limit) return false;
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // The closing quote is the next one not escaped by an odd run of backslashes.
      for (;;) {
        const end = text.indexOf('"', i + 1);
        if (end === -1) return false;
        let slashes = 0;
        while (text.charCodeAt(end - 1 - slashes) === BACKSLASH) slashes++;
        i = end;
        if (slashes % 2 === 0) break;
      }
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true;
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) {
      depth--;
    }
  }
  return false;
}
