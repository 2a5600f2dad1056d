import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exceedsJsonDepth, MAX_JSON_DEPTH } from '../../platform/http/jsonDepth.ts';
import { openSqliteReadStore } from '../../platform/readStore/sqlite/sqliteReadStore.ts';
import type { ReadStore } from '../../platform/readStore/readStore.ts';
import { tempSqliteFile } from '../contracts/storeFixtures.ts';

/**
 * Whatever body the API accepts must be a document the SQLite read store can apply: its indexes
 * are json_extract expressions, so SQLite parses every document written to an indexed table, and
 * a document it cannot parse fails the projection's commit on every retry. The payload is
 * generated as the catch route would record it (text → JSON.parse, then stored in the event log
 * as JSON text and parsed back) and kept under the ingress depth limit, wrapped as a sample is.
 */
describe('SQLite read store: every accepted body applies', () => {
  let store: ReadStore;
  let dispose: () => Promise<void>;
  let position = 0;
  beforeAll(async () => {
    const file = tempSqliteFile();
    dispose = file.dispose;
    store = openSqliteReadStore({ file: file.file });
    await store.ensureIndex('samples', ['trigger_id', 'position']);
    await store.ensureIndex('samples', ['payload.email']);
  });
  afterAll(async () => {
    await store.close();
    await dispose();
  });

  const asRecorded = (text: string): unknown => JSON.parse(JSON.stringify(JSON.parse(text)));
  const apply = async (payload: unknown) => {
    position += 1;
    const doc = { id: `t1:${position % 10}`, trigger_id: 1, position, payload, query: {}, headers: {} };
    await store.commit('automation', [{ op: 'upsert', collection: 'samples', doc }], { expected: position === 1 ? null : position - 1, next: position });
    expect(await store.get('samples', doc.id)).toEqual(doc);
  };

  const hostileKey = fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.constantFrom('$', '$.a', 'a.b', '"', '\\', '\u0000', '__proto__', 'constructor', 'email', "'"));
  const hostileString = fc.oneof(fc.string({ unit: 'binary', maxLength: 40 }), fc.constantFrom('\ud800', '\udfff', '\u0000', '\\u0000', '"', "'", '\u2028', '$[0]', '1e999'));
  const leaf = fc.oneof(hostileString, fc.double(), fc.integer(), fc.boolean(), fc.constant(null), fc.constantFrom(1e308, -0, Number.MAX_SAFE_INTEGER + 2, 5e-324));
  const value: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
    v: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('v'), { maxLength: 4 }), fc.dictionary(hostileKey, tie('v'), { maxKeys: 4 })),
  })).v;

  it('hostile keys, strings and numbers', async () => {
    await fc.assert(
      fc.asyncProperty(fc.dictionary(hostileKey, value, { maxKeys: 6 }), async (body) => {
        const text = JSON.stringify(body);
        fc.pre(!exceedsJsonDepth(text));
        await apply(asRecorded(text));
      }),
      { numRuns: 500 },
    );
  });

  it('nesting at the limit, of objects, arrays and a non-object wrapped as {_body}', async () => {
    for (const [open, close] of [['{"a":', '}'], ['[', ']']]) {
      const text = `${open!.repeat(MAX_JSON_DEPTH)}"\\ud800\\u0000"${close!.repeat(MAX_JSON_DEPTH)}`;
      expect(exceedsJsonDepth(text)).toBe(false);
      const parsed = asRecorded(text);
      await apply(Array.isArray(parsed) ? { _body: parsed } : parsed);
    }
  });
});
