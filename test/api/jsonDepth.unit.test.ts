import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../platform/http/jsonDepth.ts';

/** The depth of a parsed value, as the scan must count it: each object and array one level. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  const children = Array.isArray(value) ? value : Object.values(value as Record<string, unknown>);
  return 1 + Math.max(0, ...children.map(depthOf));
}

const nested = (depth: number, open: string, close: string, leaf = '1') => open.repeat(depth) + leaf + close.repeat(depth);

describe('exceedsJsonDepth (one scan of the raw text)', () => {
  it.each([
    ['arrays at the limit', nested(MAX_JSON_DEPTH, '[', ']'), false],
    ['arrays one past the limit', nested(MAX_JSON_DEPTH + 1, '[', ']'), true],
    ['objects at the limit', nested(MAX_JSON_DEPTH, '{"a":', '}'), false],
    ['objects one past the limit', nested(MAX_JSON_DEPTH + 1, '{"a":', '}'), true],
    ['the audit’s catch body', `{"x":${nested(1500, '[', ']', '')}}`, true],
    ['200,000 levels', nested(200_000, '[', ']'), true],
    ['brackets inside a string', `{"a":"${'['.repeat(10_000)}"}`, false],
    ['escaped quotes inside a string', `{"a":"\\"${'['.repeat(10_000)}\\\\"}`, false],
    ['an escaped backslash before the closing quote', `["\\\\",${nested(MAX_JSON_DEPTH, '[', ']')}]`, true],
    ['brackets in keys', `{"${'{'.repeat(500)}":1}`, false],
    ['siblings, each shallow', `[${Array.from({ length: 500 }, () => '[[1]]').join(',')}]`, false],
    ['an unterminated string', `["${'['.repeat(500)}`, false],
  ])('%s', (_name, text, expected) => {
    expect(exceedsJsonDepth(text)).toBe(expected);
  });

  it('agrees with the depth of the parsed value for any JSON', () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 12 }), fc.integer({ min: 0, max: 12 }), (value, limit) => {
        const text = JSON.stringify(value);
        expect(exceedsJsonDepth(text, limit)).toBe(depthOf(value) > limit);
      }),
      { numRuns: 2000 },
    );
  });
});
