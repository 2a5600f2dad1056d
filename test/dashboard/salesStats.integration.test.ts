import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type ManualClock, type TestServer } from '../helpers/testServer.ts';
import { paidSession } from './dashboardFixtures.ts';

type Day = { date: string; created: number; completed: number; expired: number; amounts: Record<string, number> };
type Stats = { timezone: string; days: Day[]; totals: Day; open_sessions: number };

/** GET /manage/api/stats/sales: days cut in the organization's time zone, from the sales_stats read model. */
describe('sales per day (Home)', () => {
  let server: TestServer;
  let clock: ManualClock;
  beforeAll(async () => {
    clock = manualClock(Date.parse('2026-11-23T14:00:00Z'));
    server = await startTestServer({ clock });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
  });

  it("counts each sale on the organization's day, with its amount, and nothing of another organization", async () => {
    const seller = await signedInPerson(server);
    expect((await seller.client.json('PATCH', '/manage/api/organization', { timezone: 'Asia/Tokyo' })).status).toBe(200);
    const other = await signedInPerson(server);
    await makeOffer(server, seller.organizationId, { slug: 'tokyo-plan' });
    await makeOffer(server, other.organizationId, { slug: 'elsewhere-plan' });

    await paidSession(server, 'tokyo-plan', { email: 'late@example.com' }); // 23:00 in Tokyo, Nov 23
    clock.set(Date.parse('2026-11-23T16:00:00Z'));
    await paidSession(server, 'tokyo-plan', { email: 'early@example.com' }); // 01:00 in Tokyo, Nov 24
    await paidSession(server, 'tokyo-plan', { email: 'open@example.com' }, { pay: false });
    await paidSession(server, 'elsewhere-plan', { email: 'other@example.com' });
    clock.set(Date.parse('2026-11-24T10:00:00Z'));
    await server.settle();
    // The jump ended the sessions (2 hours idle): sign in again.
    for (const p of [seller, other]) expect((await p.client.json('POST', '/manage/api/sign-in', { email: p.email, password: p.password })).status).toBe(200);

    const { status, body } = await seller.client.json<Stats>('GET', '/manage/api/stats/sales?days=7');
    expect(status).toBe(200);
    expect(body.timezone).toBe('Asia/Tokyo');
    expect(body.days).toHaveLength(7);
    expect(body.days.at(-1)).toMatchObject({ date: '2026-11-24', created: 2, completed: 1, amounts: { EUR: 2400 } });
    expect(body.days.at(-2)).toMatchObject({ date: '2026-11-23', created: 1, completed: 1, amounts: { EUR: 2400 } });
    expect(body.totals).toMatchObject({ created: 3, completed: 2, expired: 0, amounts: { EUR: 4800 } });
    expect(body.open_sessions).toBe(1);

    // In UTC both sales fall on Nov 23.
    expect((await seller.client.json('PATCH', '/manage/api/organization', { timezone: 'UTC' })).status).toBe(200);
    const utc = (await seller.client.json<Stats>('GET', '/manage/api/stats/sales?days=2')).body;
    expect(utc.days.map((d) => [d.date, d.completed])).toEqual([
      ['2026-11-23', 2],
      ['2026-11-24', 0],
    ]);
    expect((await seller.client.json<Stats>('GET', '/manage/api/stats/sales?mode=live')).body.totals.completed).toBe(0);

    const others = (await other.client.json<Stats>('GET', '/manage/api/stats/sales')).body;
    expect(others.totals).toMatchObject({ completed: 1, created: 1 });
  });

  it('refuses a bad query in the Laravel shape, and answers 401 without a session', async () => {
    const seller = await signedInPerson(server);
    const bad = await seller.client.json<{ errors: Record<string, string[]> }>('GET', '/manage/api/stats/sales?days=500');
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(['days']);
    expect((await fetch(`${server.url}/manage/api/stats/sales`)).status).toBe(401);
  });
});
