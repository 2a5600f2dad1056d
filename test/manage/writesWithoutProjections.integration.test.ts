import { describe, expect, it } from 'vitest';
import { manageClient, signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Json = Record<string, unknown>;

const sequence = (name: string) => ({
  key: 'lagging-signups',
  name,
  actions: [{ type: 'send_webhook', url: 'https://example.com/hook', payload: '{"email":"{{webhook_payload.email}}"}' }],
  triggers: [{ key: 'form', name: 'Form' }],
});

/** The same person's session against another server on the same data directory. */
async function resume(server: TestServer, from: ManageClient): Promise<ManageClient> {
  const client = manageClient(server);
  client.cookie = from.cookie;
  expect((await client.json('GET', '/manage/api/session')).status).toBe(200);
  return client;
}

describe('sequence and promo writes answer from the command, with projections stopped', () => {
  it('creates and updates by key without the read models, and the GETs show it once projections run', async () => {
    let server = await startTestServer();
    const person = await signedInPerson(server);
    const dataDir = server.dataDir;
    await server.close();
    // No projection runs in this process: the read models stay where they were (empty).
    server = await startTestServer({ dataDir, runProjections: false });
    const now = Math.floor(Date.now() / 1000);
    const promo = { slug: 'lagging-launch', name: 'Launch', starts_at: now - 60, ends_at: now + 86_400, tiers: [{ name: 'Early', discount_percent: 20 }] };
    let created: { status: number; body: { sequence_id: number; triggers: Array<{ trigger_id: number; catch_url: string }> } & Json };
    try {
      const client = await resume(server, person.client);
      created = await client.json('POST', '/manage/api/sequences', sequence('First name'));
      expect(created.status).toBe(200);
      expect(created.body).toMatchObject({ key: 'lagging-signups', created: true, changed: true, triggers: [{ key: 'form', created: true }] });
      // The read model knows nothing of it, yet the same key finds the same sequence and trigger.
      const updated = await client.json('POST', '/manage/api/sequences', sequence('Second name'));
      expect(updated.status).toBe(200);
      expect(updated.body).toMatchObject({ sequence_id: created.body.sequence_id, created: false, changed: true, triggers: [{ trigger_id: created.body.triggers[0]!.trigger_id, created: false, catch_url: created.body.triggers[0]!.catch_url }] });
      expect((await client.json('POST', '/manage/api/promos', promo)).body).toEqual({ slug: 'lagging-launch', created: true, changed: true });
      expect((await client.json('POST', '/manage/api/promos', { ...promo, name: 'Launch 2' })).body).toEqual({ slug: 'lagging-launch', created: false, changed: true });
      expect((await client.json<{ data: Json[] }>('GET', '/manage/api/sequences')).body.data).toEqual([]);
    } finally {
      await server.close();
    }

    server = await startTestServer({ dataDir });
    try {
      await server.settle();
      const client = await resume(server, person.client);
      const sequences = await client.json<{ data: Json[] }>('GET', '/manage/api/sequences');
      expect(sequences.body.data).toEqual([expect.objectContaining({ id: created.body.sequence_id, key: 'lagging-signups', name: 'Second name' })]);
      const triggers = await client.json<{ data: Array<{ id: number; catch_url: string }> }>('GET', '/manage/api/triggers');
      expect(triggers.body.data.map((t) => [t.id, new URL(t.catch_url).pathname])).toEqual([[created.body.triggers[0]!.trigger_id, new URL(created.body.triggers[0]!.catch_url).pathname]]);
      expect((await client.json<{ data: Json[] }>('GET', '/manage/api/promos')).body.data).toEqual([expect.objectContaining({ slug: 'lagging-launch', name: 'Launch 2' })]);
    } finally {
      await server.close({ remove: true });
    }
  }, 60_000);
});
