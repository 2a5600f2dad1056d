import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { paidSession } from '../dashboard/dashboardFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** The dashboard's customer routes over real HTTP: what members read, what only owners do. */
describe('customers under /manage/api', () => {
  let server: TestServer;
  let owner: Awaited<ReturnType<typeof signedInPerson>>;
  let member: Awaited<ReturnType<typeof signedInPerson>>;
  let stranger: Awaited<ReturnType<typeof signedInPerson>>;
  let customerId: string;

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    owner = await signedInPerson(server);
    member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    stranger = await signedInPerson(server);
    await makeOffer(server, owner.organizationId, { slug: 'manage-offer' });
    const sessionId = await paidSession(server, 'manage-offer', { email: 'lin@example.com', name: 'Lin' });
    const completed = (await server.services.store.readStream(`checkout_session-${sessionId}`)).find((e) => e.type === 'CheckoutSessionCompleted')!;
    customerId = (completed.data as Body).customer_id as string;
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  it('lets a member read the list, a customer, their invoices and history, with the dashboard page meta', async () => {
    const list = await member.client.json<Body>('GET', '/manage/api/customers?email=LIN@example.com');
    expect(list.status).toBe(200);
    expect(list.body.data.map((c: Body) => c.id)).toEqual([customerId]);
    expect(list.body.meta).toMatchObject({ current_page: 1, per_page: 25, total: 1 });
    expect(list.body.links).toBeUndefined();
    expect((await member.client.json<Body>('GET', `/manage/api/customers/${customerId}`)).body).toMatchObject({ email: 'lin@example.com', total_spent: { EUR: 2400 } });
    expect((await member.client.json<Body>('GET', `/manage/api/customers/${customerId}/invoices`)).body.data).toHaveLength(1);
    expect((await member.client.json<Body>('GET', `/manage/api/customers/${customerId}/history`)).body.data.length).toBeGreaterThan(5);
    expect((await member.client.json<Body>('GET', '/manage/api/customers?per_page=0')).status).toBe(422);
  });

  it("keeps another organization's customer out, as an unknown one", async () => {
    for (const path of [`/manage/api/customers/${customerId}`, `/manage/api/customers/${customerId}/history`, `/manage/api/customers/${customerId}/invoices`]) {
      const answer = await stranger.client.json<Body>('GET', path);
      expect(answer.status, path).toBe(404);
    }
    expect((await stranger.client.json<Body>('GET', '/manage/api/customers')).body.data).toEqual([]);
    expect((await stranger.client.json<Body>('POST', `/manage/api/customers/${customerId}/redact`, {})).status).toBe(404);
  });

  it('refuses the erasure to a member and does it for an owner', async () => {
    const refused = await member.client.json<Body>('POST', `/manage/api/customers/${customerId}/redact`, {});
    expect(refused.status).toBe(403);
    expect((await member.client.json<Body>('GET', `/manage/api/customers/${customerId}`)).body.email).toBe('lin@example.com');

    const done = await owner.client.json<Body>('POST', `/manage/api/customers/${customerId}/redact`, {});
    expect(done.status).toBe(200);
    expect(done.body).toMatchObject({ id: customerId, email: `redacted+${customerId}@invalid`, name: null, redacted: true });
    const history = (await owner.client.json<Body>('GET', `/manage/api/customers/${customerId}/history`)).body.data as Body[];
    expect(history.some((e) => e.type === 'CustomerRedacted' && e.actor.type === 'user' && e.actor.id === owner.userId)).toBe(true);
  });
});
