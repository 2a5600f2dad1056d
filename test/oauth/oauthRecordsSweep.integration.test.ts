import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OAUTH_RECORDS, oidcAdapterClass } from '../../modules/oauth/http/oidcStorage.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('expired OAuth records', () => {
  let server: TestServer;
  const clock = manualClock();
  beforeAll(async () => {
    // The sweep every 50 ms: the test moves the clock, the job finds what expired.
    server = await startTestServer({ clock, env: { OAUTH_SWEEP_INTERVAL_MS: '50' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('are deleted by the sweep, whether or not anything looks them up again; live ones and those without an expiry stay', { timeout: 30_000 }, async () => {
    const Adapter = oidcAdapterClass(server.services.readStore, server.services.store, server.services.clock);
    const tokens = new Adapter('AccessToken');
    const interactions = new Adapter('Interaction');
    const grants = new Adapter('Grant');
    const base = { iat: Math.floor(clock() / 1000), clientId: 'app_x', accountId: 'usr_x', grantId: 'grt_x' };
    for (let i = 0; i < 30; i++) await tokens.upsert(`hourly-token-${i}`, { ...base, scope: 'catalog:read' }, 3600);
    await interactions.upsert('abandoned-consent-page', { ...base }, 3600);
    await tokens.upsert('a-day-token', { ...base, scope: 'catalog:read' }, 86_400);
    await grants.upsert('grt_forever', { accountId: 'usr_x', clientId: 'app_x' });
    const count = () => server.services.readStore.count(OAUTH_RECORDS);
    expect(await count()).toBe(33);

    clock.advance(3600 * 1000 + 1);
    await expect.poll(count, { timeout: 10_000 }).toBe(2);
    expect(await tokens.find('a-day-token')).toMatchObject({ scope: 'catalog:read' });
    expect(await grants.find('grt_forever')).toMatchObject({ clientId: 'app_x' });
    expect(await tokens.find('hourly-token-0')).toBeUndefined();

    clock.advance(86_400 * 1000);
    await expect.poll(count, { timeout: 10_000 }).toBe(1);
    expect(await grants.find('grt_forever')).toMatchObject({ clientId: 'app_x' });
  });
});
