import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually, startReceiver } from '../helpers/receiver.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { TEST_ENV } from '../automation/fixtures.ts';

type Sample = { id: string; payload: Record<string, unknown> };

describe('trigger samples and test runs', () => {
  let server: TestServer;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let owner: ManageClient;
  let stranger: ManageClient;
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
    receiver = await startReceiver();
    owner = (await signedInPerson(server)).client;
    stranger = (await signedInPerson(server)).client;
  });
  afterAll(async () => {
    await receiver.close();
    await server.close({ remove: true });
  });

  it('lists received requests, makes one the sample record, and test-runs the sequence against it: the webhook really goes out, marked test', async () => {
    const created = await owner.json<{ triggers: Array<{ trigger_id: number; catch_url: string }> }>('POST', '/manage/api/sequences', {
      key: 'sampled',
      name: 'Sampled',
      actions: [{ type: 'send_webhook', url: `${receiver.url}/hook`, payload: '{"email":"{{webhook_payload.email}}"}' }],
      triggers: [{ key: 'form', name: 'Form' }],
    });
    const trigger = created.body.triggers[0]!;
    const id = trigger.trigger_id;
    const waiting = await owner.json<{ data: Sample[]; chosen: unknown }>('GET', `/manage/api/triggers/${id}/samples`);
    expect(waiting.body).toEqual({ data: [], chosen: null });
    expect((await owner.json('POST', `/manage/api/triggers/${id}/test-run`)).body).toMatchObject({ code: 'no_sample' });

    // Paused, so these requests start nothing; they are still received as samples.
    expect((await owner.json('POST', '/manage/api/sequences/1/pause')).status).toBe(200);
    for (const email of ['first@example.com', 'second@example.com']) {
      const r = await server.fetch(new URL(trigger.catch_url).pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
      expect(((await r.json()) as { workflow_id: unknown }).workflow_id).toBeNull();
    }
    await server.settle();
    const samples = await owner.json<{ data: Sample[] }>('GET', `/manage/api/triggers/${id}/samples`);
    expect(samples.body.data.map((s) => s.payload.email)).toEqual(['second@example.com', 'first@example.com']);
    const first = samples.body.data[1]!;

    const chosen = await owner.json('PUT', `/manage/api/triggers/${id}/sample`, { sample_id: first.id });
    expect(chosen).toMatchObject({ status: 200, body: { trigger_id: id, sample: { payload: { email: 'first@example.com' } } } });
    const run = await owner.json<{ workflow_id: number; test: true }>('POST', `/manage/api/triggers/${id}/test-run`);
    expect(run.status).toBe(202);
    expect(run.body.test).toBe(true);

    const call = await eventually(async () => receiver.calls.find((c) => c.url === '/hook'));
    expect(JSON.parse(call.body)).toEqual({ email: 'first@example.com' });
    // One reception, marked test, carries the workflow it started.
    const started = (await server.services.store.readAll({ after: null, limit: 100_000 })).find(
      (e) => e.type === 'WebhookReceived' && (e.data as { outcome?: { workflow_id?: number } }).outcome?.workflow_id === run.body.workflow_id,
    );
    expect(started?.data).toMatchObject({ test: true, outcome: { status: 'started' } });
    await server.settle();
    expect((await owner.json('GET', `/manage/api/workflows/${run.body.workflow_id}`)).body).toMatchObject({ test: true });
    // The test run is no new sample.
    expect((await owner.json<{ data: Sample[]; chosen: unknown }>('GET', `/manage/api/triggers/${id}/samples`)).body.data).toHaveLength(2);
  });

  it("refuses another organization's trigger or sample as unknown ones, and bad sample ids with 422", async () => {
    const theirs = await stranger.json<{ triggers: Array<{ trigger_id: number; catch_url: string }> }>('POST', '/manage/api/sequences', { key: 'theirs', name: 'Theirs', triggers: [{ key: 't', name: 'T' }] });
    const trigger = theirs.body.triggers[0]!;
    await server.fetch(new URL(trigger.catch_url).pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"x@example.com"}' });
    await server.settle();
    const [sample] = (await stranger.json<{ data: Sample[] }>('GET', `/manage/api/triggers/${trigger.trigger_id}/samples`)).body.data;
    for (const [method, suffix, body] of [
      ['GET', 'samples', undefined],
      ['PUT', 'sample', { sample_id: sample!.id }],
      ['POST', 'test-run', undefined],
    ] as const) {
      const foreign = await owner.json(method, `/manage/api/triggers/${trigger.trigger_id}/${suffix}`, body);
      expect(foreign.status).toBe(404);
      expect(foreign).toEqual(await owner.json(method, `/manage/api/triggers/999999/${suffix}`, body));
    }
    // Their sample id on my trigger is an unknown sample.
    const mine = (await owner.json<{ data: Array<{ id: number }> }>('GET', '/manage/api/triggers')).body.data[0]!;
    expect((await owner.json('PUT', `/manage/api/triggers/${mine.id}/sample`, { sample_id: sample!.id })).status).toBe(404);
    expect((await owner.json('PUT', `/manage/api/triggers/${mine.id}/sample`, { sample_id: '../x' })).status).toBe(422);
  });
});
