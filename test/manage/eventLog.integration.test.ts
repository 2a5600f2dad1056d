import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence } from '../../modules/automation/automationCommands.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Events = { data: Array<{ stream: string; type: string; data: unknown; actor: { type: string } }>; next_after: string | null };

describe('the event-log view', () => {
  let server: TestServer;
  let owner: ManageClient;
  let stranger: ManageClient;
  let organizationId: string;
  let productStream: string;
  beforeAll(async () => {
    server = await startTestServer();
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    stranger = (await signedInPerson(server)).client;
    for (const key of ['one', 'two', 'three']) {
      const created = await owner.json<{ id: string }>('POST', '/manage/api/products', { key, name: key, plans: [] });
      expect(created.status).toBe(201);
      await owner.json('POST', `/manage/api/products/${created.body.id}/publish`);
    }
    productStream = (await server.services.store.readAll({ after: null, limit: 10_000, streamPrefixes: ['product-'] }))[0]!.stream;
    await createSequence(server.cliContext(organizationId), {
      organizationId,
      name: 'Signed',
      actions: [{ type: 'send_webhook', url: 'https://example.com/hook', method: 'POST', payload: '{}', headers: {}, signing_secret: 'whsec_Y29tbWVyY2UtdGVzdC1ldmVudGxvZy1zZWNyZXQta2U=' }],
    });
  });
  afterAll(() => server.close({ remove: true }));

  it('shows one stream of the organization, and answers another organization\'s or an identity stream as unknown', async () => {
    const stream = await owner.json<Events>('GET', `/manage/api/events/streams/${productStream}`);
    expect(stream.status).toBe(200);
    expect(stream.body.data.map((e) => e.type)).toEqual(['ProductCreated', 'ProductPublished']);
    expect(stream.body.data[0]!.actor.type).toBe('user');
    const foreign = await stranger.json('GET', `/manage/api/events/streams/${productStream}`);
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(await stranger.json('GET', '/manage/api/events/streams/product-00000000-0000-0000-0000-000000000000'));
    const [userEvent] = await server.services.store.readAll({ after: null, limit: 1, streamPrefixes: ['user-'] });
    expect((await owner.json('GET', `/manage/api/events/streams/${userEvent!.stream}`)).status).toBe(404);
    expect((await owner.json('GET', '/manage/api/events/streams/bad..name')).status).toBe(422);
  });

  it("pages the organization's events by type, never shows a signing secret, and shows nothing of other organizations", async () => {
    await server.settle();
    const first = await owner.json<Events>('GET', '/manage/api/events?type=ProductPublished&limit=2');
    expect(first.body.data).toHaveLength(2);
    expect(first.body.data.every((e) => e.type === 'ProductPublished')).toBe(true);
    const second = await owner.json<Events>('GET', `/manage/api/events?type=ProductPublished&limit=2&after=${first.body.next_after}`);
    expect(second.body.data).toHaveLength(1);
    const all = await owner.json<Events>('GET', '/manage/api/events?limit=200');
    const text = JSON.stringify(all.body);
    expect(all.body.data.some((e) => e.stream.startsWith('automation_sequence-'))).toBe(true);
    expect(text).not.toContain('whsec_Y29tbWVyY2UtdGVzdC1ldmVudGxvZy1zZWNyZXQta2U=');
    expect(all.body.data.some((e) => e.stream.startsWith('user'))).toBe(false);
    // The stranger sees their own organization's creation, nothing of this one.
    const theirs = (await stranger.json<Events>('GET', '/manage/api/events?limit=200')).body.data;
    expect(theirs.map((e) => e.type)).toEqual(['OrganizationCreated']);
    expect(theirs[0]!.stream).not.toBe(`organization-${organizationId}`);
    const future = Math.floor(Date.now() / 1000) + 3600;
    expect((await owner.json<Events>('GET', `/manage/api/events?from=${future}`)).body.data).toEqual([]);
    expect((await owner.json('GET', '/manage/api/events?limit=0')).status).toBe(422);
  });

  it('finds the organization\'s events behind thousands of another organization\'s, in one indexed page', async () => {
    // 6,000 events of another organization (more than the old per-request scan of 5,000), then one of ours.
    const metadata = { correlation_id: 'noise', actor: { type: 'cli' as const }, organization_id: 'org_noise', occurred_at: Math.floor(Date.now() / 1000) };
    await server.services.store.append(
      'product-00000000-0000-4000-8000-00000000noise',
      Array.from({ length: 6000 }, (_, i) => ({ id: randomUUID(), type: 'ProductNoise', data: { i }, metadata })),
      'no_stream',
    );
    expect((await owner.json('POST', '/manage/api/products', { key: 'late', name: 'Late', plans: [] })).status).toBe(201);
    await server.settle();
    const created = await owner.json<Events>('GET', '/manage/api/events?type=ProductCreated&limit=10');
    expect(created.body.data.map((e) => (e.data as { key: string }).key)).toEqual(['one', 'two', 'three', 'late']);
    expect(created.body.next_after).toBeNull();
    const all = (await owner.json<Events>('GET', '/manage/api/events?limit=200')).body.data;
    expect(all.some((e) => e.type === 'ProductNoise')).toBe(false);
  }, 60_000);
});
