import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { importPlans, SubscriptionLog, T0 } from './subscriptionFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const FOREVER = {
  coupon: { id: 'co_1', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration: 'forever' as const, duration_in_months: null, applies_to: null },
  promotion_code: { id: 'promo_1', code: 'LAUNCH20' },
};

/** Removing a subscription's discount from the dashboard: a member may, as they may cancel it. */
describe("a subscription's discount under /manage/api", () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof signedInPerson>>;
  let member: Awaited<ReturnType<typeof signedInPerson>>;
  let stranger: Awaited<ReturnType<typeof signedInPerson>>;

  beforeAll(async () => {
    server = await startTestServer();
    owner = await signedInPerson(server);
    member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    stranger = await signedInPerson(server);
  });
  afterAll(async () => server?.close({ remove: true }));

  it('lets a member remove it, not another organization or a forged form', async () => {
    const { terms } = await importPlans(server, owner.organizationId);
    const log = await SubscriptionLog.create(server, owner.organizationId, { plan: terms('basic'), amount: 1000, at: T0, discount: FOREVER });
    await server.settle();
    const path = `/manage/api/subscriptions/${log.id}/discount`;
    expect((await owner.client.json<Body>('GET', `/manage/api/subscriptions/${log.id}`)).body.discount).toMatchObject({ object: 'discount', coupon: { id: 'co_1' }, start: T0, end: null });

    const forged = await fetch(`${server.url}${path}`, {
      method: 'DELETE',
      headers: { accept: 'application/json', 'sec-fetch-site': 'same-origin', cookie: `commerce_session=${owner.client.cookie}`, 'x-csrf-token': 'forged' },
    });
    expect(forged.status).toBe(403);
    expect((await stranger.client.json<Body>('DELETE', path)).status).toBe(404);
    expect((await server.services.store.readStream(subscriptionStream(log.id))).some((e) => e.type === 'SubscriptionDiscountRemoved')).toBe(false);

    const removed = await member.client.json<Body>('DELETE', path);
    expect(removed.status).toBe(200);
    expect(removed.body).toMatchObject({ object: 'discount', deleted: true, subscription: log.id, coupon: { id: 'co_1' } });
    const events = await server.services.store.readStream(subscriptionStream(log.id));
    expect(events.at(-1)).toMatchObject({ type: 'SubscriptionDiscountRemoved', metadata: { actor: { type: 'user', id: member.userId } } });
    await server.settle();
    expect((await owner.client.json<Body>('GET', `/manage/api/subscriptions/${log.id}`)).body.discount).toBeNull();
  });
});
