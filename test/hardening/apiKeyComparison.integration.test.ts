import type * as Crypto from 'node:crypto';
import { createRequire, syncBuiltinESMExports } from 'node:module';
import { afterAll, beforeAll, describe, expect, it, vi, type MockInstance } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

// Observe (not replace) node:crypto's timingSafeEqual, to see the auth path really goes through it:
// a spy on the built-in's exports, synced to the ESM bindings every importer reads (no module mock,
// so the test needs no module graph of its own).
const crypto = createRequire(import.meta.url)('node:crypto') as typeof Crypto;

describe('API key comparison', () => {
  let server: TestServer;
  let spy: MockInstance<typeof crypto.timingSafeEqual>;
  beforeAll(async () => {
    spy = vi.spyOn(crypto, 'timingSafeEqual');
    syncBuiltinESMExports();
    server = await startTestServer();
  });
  afterAll(async () => {
    await server.close({ remove: true });
    spy.mockRestore();
    syncBuiltinESMExports();
  });

  it.each([
    ['a valid key', (t: string) => t, 200],
    ['a wrong secret', (t: string) => `${t.slice(0, -1)}${t.endsWith('A') ? 'B' : 'A'}`, 401],
    ['an unknown key id', () => 'csk_key_AAAAAAAAAAAAAAAA_BBBBBBBBBBBBBBBBBBBBBBBBBBBBBBBB', 401],
  ])('compares the secret with timingSafeEqual for %s (also when the key id is unknown)', async (_name, tokenOf, status) => {
    const me = await server.identity();
    spy.mockClear();
    const response = await server.fetch('/api/users/me', { token: tokenOf(me.token) });
    expect(response.status).toBe(status);
    expect(spy).toHaveBeenCalledTimes(1);
    const [x, y] = spy.mock.calls[0]!;
    // Both sides are 32-byte SHA-256 digests: equal lengths, so the comparison time does not depend on the input.
    expect((x as Buffer).length).toBe(32);
    expect((y as Buffer).length).toBe(32);
  });
});
