import { randomBytes, randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { Webhook } from 'standardwebhooks';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sequenceStream } from '../../modules/automation/domain/sequence.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { eventually, startReceiver, type ReceivedCall } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { TEST_ENV } from './fixtures.ts';

type Workflow = { id: number; status: string; steps: Array<{ step: number; status: string; attempts: number }> };
type Created = { sequence_id: number; triggers: Array<{ catch_url: string }> };

const newSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
const headersOf = (call: ReceivedCall) => Object.fromEntries(Object.entries(call.headers).map(([k, v]) => [k, String(v)]));
/** What a receiver does with the `standardwebhooks` package: the parsed body, or a throw. */
const verify = (webhook: Webhook, call: ReceivedCall, body = call.body) => webhook.verify(body, headersOf(call));

/**
 * Send Webhook signs as Standard Webhooks: a real receiver on loopback verifies each call with
 * the `standardwebhooks` package, sequences made and edited through the management routes the
 * dashboard's sequence editor calls.
 */
describe('Send Webhook: Standard Webhooks signatures', () => {
  let server: TestServer;
  let owner: ManageClient;
  let organizationId: string;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  /** Path → the statuses of its next calls (then 200). */
  const statuses = new Map<string, number[]>();
  beforeAll(async () => {
    server = await startTestServer({ env: TEST_ENV });
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    receiver = await startReceiver((call, res: ServerResponse) => {
      const status = statuses.get(call.url)?.shift() ?? 200;
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(status === 200 ? '{"ok":true}' : '{"busy":true}');
    });
  });
  afterAll(async () => {
    await receiver.close();
    await server.close({ remove: true });
  });

  const save = (key: string, actions: unknown[]) =>
    owner.json<Created & { errors?: Record<string, string[]>; code?: string }>('POST', '/manage/api/sequences', { key, name: `Sequence ${key}`, actions, triggers: [{ key: 'form', name: 'Form' }] });
  const hook = (path: string, over: Record<string, unknown> = {}) => ({ type: 'send_webhook', url: `${receiver.url}${path}`, payload: '{"email":"{{webhook_payload.email}}"}', ...over });
  const callsTo = (path: string) => receiver.calls.filter((c) => c.url === path);
  const settled = (id: number) =>
    eventually(async () => {
      await server.settle();
      const w = await owner.json<Workflow>('GET', `/manage/api/workflows/${id}`);
      return w.body.status === 'running' ? null : w.body;
    }, 30_000);
  const trigger = async (created: Created, email = 'ada@example.com') => {
    const caught = await server.fetch(new URL(created.triggers[0]!.catch_url).pathname, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email }) });
    return ((await caught.json()) as { workflow_id: number }).workflow_id;
  };

  it('signs a call so that new Webhook(secret).verify accepts it, with webhook-id the step\'s idempotency key; a tampered body fails', async () => {
    const secret = newSecret();
    const created = await save('signed', [hook('/signed', { signing_secret: secret })]);
    expect(created.status).toBe(200);
    const id = await trigger(created.body);
    expect((await settled(id)).status).toBe('completed');
    const [call] = callsTo('/signed');
    expect(call!.headers['webhook-id']).toBe(`wf_${id}_step_0`);
    expect(call!.headers['idempotency-key']).toBe(`wf_${id}_step_0`);
    expect(call!.headers['webhook-timestamp']).toMatch(/^\d+$/);
    expect(Math.abs(Number(call!.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(call!.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
    expect(verify(new Webhook(secret), call!)).toEqual({ email: 'ada@example.com' });
    expect(() => verify(new Webhook(secret), call!, call!.body.replace('ada@', 'eve@'))).toThrow(/No matching signature/);
    expect(() => verify(new Webhook(newSecret()), call!)).toThrow(/No matching signature/);
  });

  it('keeps webhook-id across the retries of a step and across a re-run of it, each attempt signed anew', async () => {
    const secret = newSecret();
    const webhook = new Webhook(secret);
    // Two attempts retried, then a run whose three attempts fail, then 200 for its re-run.
    statuses.set('/retried', [503, 503, 200, 503, 503, 503]);
    const created = await save('retried', [hook('/retried', { signing_secret: secret })]);
    const id = await trigger(created.body);
    expect(await settled(id)).toMatchObject({ status: 'completed', steps: [{ attempts: 3 }] });
    const retried = await trigger(created.body, 'bo@example.com');
    expect(await settled(retried)).toMatchObject({ status: 'failed', steps: [{ attempts: 3 }] });
    expect((await owner.json('POST', `/manage/api/workflows/${retried}/rerun`)).status).toBe(202);
    await eventually(async () => (await settled(retried)).status === 'completed', 30_000);

    const calls = callsTo('/retried');
    expect(calls).toHaveLength(7);
    expect(calls.map((c) => c.headers['webhook-id'])).toEqual([...Array(3).fill(`wf_${id}_step_0`), ...Array(4).fill(`wf_${retried}_step_0`)]);
    for (const call of calls) expect(verify(webhook, call)).toEqual({ email: call.headers['webhook-id'] === `wf_${id}_step_0` ? 'ada@example.com' : 'bo@example.com' });
  });

  it('keeps signing when the sequence is saved without the secret (left out, or from_step when steps moved); null stops it', async () => {
    const secret = newSecret();
    const webhook = new Webhook(secret);
    const created = await save('edited', [hook('/edited', { signing_secret: secret })]);
    // As the editor saves: the secret is write-only, so it is not sent again.
    const edited = await save('edited', [hook('/edited', { payload: '{"email":"{{webhook_payload.email}}","edited":true}' })]);
    expect(edited.status).toBe(200);
    const listed = await owner.json<{ data: Array<{ id: number; actions: Array<{ signed?: boolean }> }> }>('GET', '/manage/api/sequences');
    expect(listed.body.data.find((s) => s.id === created.body.sequence_id)!.actions).toMatchObject([{ signed: true }]);
    await settled(await trigger(created.body));
    expect(verify(webhook, callsTo('/edited').at(-1)!)).toEqual({ email: 'ada@example.com', edited: true });

    // A step added in front: the signed step moved to position 1 and names where it was.
    const moved = await save('edited', [hook('/front', { signing_secret: null }), hook('/edited', { signing_secret: { from_step: 0 } })]);
    expect(moved.status).toBe(200);
    await settled(await trigger(created.body));
    expect(callsTo('/front').at(-1)!.headers['webhook-signature']).toBeUndefined();
    expect(verify(webhook, callsTo('/edited').at(-1)!)).toEqual({ email: 'ada@example.com' });

    await save('edited', [hook('/edited', { signing_secret: null })]);
    await settled(await trigger(created.body));
    expect(callsTo('/edited').at(-1)!.headers['webhook-signature']).toBeUndefined();
  });

  it('refuses a secret that is not whsec_ and the base64 of 24 to 64 bytes, and a from_step with no secret, with 422', async () => {
    const before = await server.services.store.headPosition();
    for (const bad of ['my-password-that-is-long-enough', `whsec_${randomBytes(16).toString('base64')}`, `whsec_${randomBytes(65).toString('base64')}`, 'whsec_not base64 at all!!', '']) {
      const answer = await save('refused', [hook('/refused', { signing_secret: bad })]);
      expect(answer.status, bad).toBe(422);
      expect(answer.body.errors!['actions.0.signing_secret']![0]).toMatch(/^The signing secret must be a Standard Webhooks secret: whsec_/);
    }
    expect(await server.services.store.headPosition()).toBe(before);
    const nothingToKeep = await save('refused', [hook('/refused', { signing_secret: { from_step: 0 } })]);
    expect(nothingToKeep.status).toBe(422);
    // Refused by the sequence's decider (on its stream), named as the import names its place.
    expect(nothingToKeep.body.errors!['sequences[0].actions[0].signing_secret']![0]).toContain('from_step 0: the sequence has no signed Send Webhook at that position');
    expect((await save('refused', [hook('/refused', { signing_secret: `whsec_${randomBytes(24).toString('base64')}` })])).status).toBe(200);
  });

  it('goes on signing with a secret saved earlier in another form: its characters are the key (format: raw)', async () => {
    const created = await save('legacy', [hook('/legacy')]);
    // Written to the log directly: such a secret is refused on save now.
    const legacy = 'whsec_writeonly_0123456789';
    const action = { type: 'send_webhook', url: `${receiver.url}/legacy`, method: 'POST', payload: '{"email":"{{webhook_payload.email}}"}', headers: {}, signing_secret: legacy };
    await server.services.store.append(sequenceStream(created.body.sequence_id), [
      { id: randomUUID(), type: 'SequenceUpdated', data: { name: 'Sequence legacy', status: 'active', actions: [action], updated_at: 1 }, metadata: server.cliContext(organizationId).metadata },
    ], 'any');
    await settled(await trigger(created.body));
    expect(() => new Webhook(legacy)).toThrow();
    expect(verify(new Webhook(legacy, { format: 'raw' }), callsTo('/legacy').at(-1)!)).toEqual({ email: 'ada@example.com' });

    // Saved again without the secret, it keeps the one it has, though that one would be refused if typed.
    expect((await save('legacy', [hook('/legacy', { payload: '{"n":1}' })])).status).toBe(200);
    await settled(await trigger(created.body));
    expect(verify(new Webhook(legacy, { format: 'raw' }), callsTo('/legacy').at(-1)!)).toEqual({ n: 1 });
  });
});
