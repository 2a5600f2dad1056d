import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Json = Record<string, unknown>;

const sequence = (key: string, extra: Json = {}) => ({
  key,
  name: `Sequence ${key}`,
  actions: [{ type: 'send_webhook', url: 'https://example.com/hook', payload: '{"email":"{{webhook_payload.email}}"}', signing_secret: 'whsec_Y29tbWVyY2UtdGVzdC13cml0ZW9ubHktc2VjcmV0LWs=' }],
  triggers: [{ key: 'form', name: 'Form' }],
  ...extra,
});

describe('sequences, triggers, workflows and promos with a session', () => {
  let server: TestServer;
  let owner: ManageClient;
  let stranger: ManageClient;
  beforeAll(async () => {
    server = await startTestServer();
    owner = (await signedInPerson(server)).client;
    stranger = (await signedInPerson(server)).client;
  });
  afterAll(() => server.close({ remove: true }));

  it('creates a sequence with a signed Send Webhook action (the secret never shown), lists triggers, disables, enables and rotates one', async () => {
    const created = await owner.json<{ sequence_id: number; created: boolean; triggers: Array<{ trigger_id: number; catch_url: string }> }>('POST', '/manage/api/sequences', sequence('signup'));
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ key: 'signup', created: true, triggers: [{ key: 'form', created: true }] });
    const [trigger] = created.body.triggers;
    expect(trigger!.catch_url).toMatch(/\/hooks\/catch\/[\w-]{24}\/[\w-]{24}$/);

    const listed = await owner.json<{ data: Array<{ actions: Json[] }> }>('GET', '/manage/api/sequences');
    expect(listed.body.data[0]!.actions[0]).toMatchObject({ type: 'send_webhook', signed: true });
    expect(JSON.stringify(listed.body)).not.toContain('Y29tbWVyY2UtdGVzdC13cml0ZW9ubHktc2VjcmV0LWs');

    const triggers = await owner.json<{ data: Array<{ id: number; enabled: boolean; trigger_type: string; catch_url: string }> }>('GET', '/manage/api/triggers?trigger_type=webhook');
    expect(triggers.body.data).toEqual([expect.objectContaining({ id: trigger!.trigger_id, enabled: true, trigger_type: 'webhook', catch_url: trigger!.catch_url })]);
    expect((await owner.json('GET', '/manage/api/triggers?trigger_type=email')).status).toBe(422);

    expect((await owner.json('POST', `/manage/api/triggers/${trigger!.trigger_id}/disable`)).body).toEqual({ id: trigger!.trigger_id, enabled: false });
    expect((await owner.json('POST', `/manage/api/triggers/${trigger!.trigger_id}/enable`)).body).toEqual({ id: trigger!.trigger_id, enabled: true });
    const rotated = await owner.json<{ catch_url: string }>('POST', `/manage/api/triggers/${trigger!.trigger_id}/rotate`);
    expect(rotated.body.catch_url).not.toBe(trigger!.catch_url);
    const oldPath = new URL(trigger!.catch_url).pathname;
    const newPath = new URL(rotated.body.catch_url).pathname;
    expect((await server.fetch(oldPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })).status).toBe(404);

    expect((await owner.json('POST', `/manage/api/sequences/${created.body.sequence_id}/pause`)).body).toMatchObject({ status: 'paused', changed: true });
    expect((await owner.json('POST', `/manage/api/sequences/${created.body.sequence_id}/resume`)).body).toMatchObject({ status: 'active', changed: true });

    // A request to the catch URL starts a workflow, which the workflow routes show.
    const caught = await server.fetch(newPath, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@example.com"}' });
    const { workflow_id } = (await caught.json()) as { workflow_id: number };
    expect(workflow_id).toEqual(expect.any(Number));
    await server.settle();
    const workflows = await owner.json<{ data: Array<{ id: number }> }>('GET', '/manage/api/workflows');
    expect(workflows.body.data.map((w) => w.id)).toContain(workflow_id);
    expect((await owner.json('GET', `/manage/api/workflows/${workflow_id}`)).body).toMatchObject({ id: workflow_id, trigger_id: trigger!.trigger_id });
    const foreign = await stranger.json('GET', `/manage/api/workflows/${workflow_id}`);
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(await stranger.json('GET', '/manage/api/workflows/999999'));
  });

  it("refuses bad input, and another organization's sequence or trigger as an unknown one", async () => {
    const before = await server.services.store.headPosition();
    const bad = await owner.json<{ errors: Record<string, string[]> }>('POST', '/manage/api/sequences', sequence('bad', { actions: [{ type: 'send_webhook', url: 'ftp://x', signing_secret: 'short' }] }));
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['actions.0.url', 'actions.0.signing_secret']));
    expect(await server.services.store.headPosition()).toBe(before);

    const theirs = await stranger.json<{ sequence_id: number; triggers: Array<{ trigger_id: number }> }>('POST', '/manage/api/sequences', sequence('theirs'));
    const triggerId = theirs.body.triggers[0]!.trigger_id;
    for (const path of [`/manage/api/triggers/${triggerId}/disable`, `/manage/api/triggers/${triggerId}/rotate`, `/manage/api/sequences/${theirs.body.sequence_id}/pause`]) {
      const foreign = await owner.json('POST', path);
      expect(foreign.status, path).toBe(404);
      expect(foreign).toEqual(await owner.json('POST', path.replace(/\/\d+\//, '/987654/')));
    }
    await server.settle();
    expect((await stranger.json<{ data: Array<{ enabled: boolean }> }>('GET', '/manage/api/triggers')).body.data[0]!.enabled).toBe(true);
    expect((await owner.json('POST', '/manage/api/triggers/0x1/enable')).status).toBe(422);
  });

  it('creates a promo and lists it and its participants; another organization\'s promo answers 404', async () => {
    const now = Math.floor(Date.now() / 1000);
    const promo = { slug: 'launch-week', name: 'Launch week', starts_at: now - 60, ends_at: now + 86_400, tiers: [{ name: 'Early', discount_percent: 20 }] };
    expect((await owner.json('POST', '/manage/api/promos', promo)).status).toBe(200);
    expect((await owner.json('POST', '/manage/api/promos', { ...promo, ends_at: now - 120 })).status).toBe(422);
    await server.settle();
    expect((await owner.json<{ data: Json[] }>('GET', '/manage/api/promos')).body.data).toEqual([expect.objectContaining({ slug: 'launch-week', participants_count: 0 })]);
    expect((await owner.json('GET', '/manage/api/promos/launch-week/participants')).body).toMatchObject({ data: [], meta: { total: 0 } });
    const foreign = await stranger.json('GET', '/manage/api/promos/launch-week/participants');
    expect(foreign.status).toBe(404);
    expect(foreign).toEqual(await stranger.json('GET', '/manage/api/promos/no-such-promo/participants'));
  });
});
