import { afterEach, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * Per-client rate limits key on the client's address. Behind a proxy that is the proxy's unless
 * TRUST_PROXY says whom to believe; without it, X-Forwarded-For is anybody's to forge and must
 * change nothing. The test server's peer address is 127.0.0.1.
 */
describe('TRUST_PROXY and the client address rate limits see', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close({ remove: true });
    server = undefined;
  });

  const LIMIT = 2;
  const start = async (trustProxy?: string) => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: String(LIMIT), ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }) } });
    return server;
  };
  /** Statuses of `count` public checkout requests forwarded for `client` (a rate-limited route). */
  const statuses = async (s: TestServer, client: string, count = LIMIT + 1) => {
    const out: number[] = [];
    for (let i = 0; i < count; i++) {
      const response = await s.fetch('/api/checkout?offer=nope', { headers: { 'x-forwarded-for': client } });
      out.push(response.status);
      await response.arrayBuffer();
    }
    return out;
  };

  it.each([
    ['unset (the default)', undefined],
    ['false', 'false'],
    ['a range the peer is not in', '10.0.0.0/8'],
  ])('%s: X-Forwarded-For is ignored, every sender shares the peer’s limit', async (_name, trust) => {
    const s = await start(trust);
    expect(await statuses(s, '203.0.113.1', LIMIT)).toEqual([404, 404]);
    expect(await statuses(s, '203.0.113.2', 1)).toEqual([429]);
  });

  it.each([
    ['the peer’s address', '127.0.0.1'],
    ['a CIDR list holding it', '10.0.0.0/8, 127.0.0.0/8'],
    ['a named range', 'loopback'],
    ['one hop', '1'],
    ['true', 'true'],
  ])('%s: each forwarded client gets its own limit', async (_name, trust) => {
    const s = await start(trust);
    expect(await statuses(s, '203.0.113.1')).toEqual([404, 404, 429]);
    expect(await statuses(s, '203.0.113.2')).toEqual([404, 404, 429]);
  });

  it('a trusted proxy’s client is the address it appended, not one the client forged before it', async () => {
    const s = await start('127.0.0.1');
    expect(await statuses(s, '203.0.113.1')).toEqual([404, 404, 429]);
    // The client at 203.0.113.9 claims to be the exhausted 203.0.113.1: its own limit applies.
    expect(await statuses(s, '203.0.113.1, 203.0.113.9', 1)).toEqual([404]);
    // The client at 203.0.113.1 claims another address: still its own, exhausted limit.
    expect(await statuses(s, '198.51.100.7, 203.0.113.1', 1)).toEqual([429]);
  });
});
