import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROMO_PARTICIPANTS } from '../../modules/promos/promoProjection.ts';
import { WORKFLOWS, type WorkflowDoc } from '../../modules/automation/automationProjection.ts';
import { EVENT_TRIGGER_CHECKPOINT, eventReceptionStream, startEventTriggers } from '../../modules/webhooks/jobs/eventTriggerJob.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('event triggers', () => {
  let server: TestServer;
  const receivers: Array<{ close(): Promise<void> }> = [];
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
  });
  afterAll(async () => {
    await Promise.all(receivers.map((r) => r.close()));
    await server.close({ remove: true });
  });

  it('a sale starts the sequence: {{event.…}} in a Send Webhook body, the buyer enrolled by default; each (trigger, event) once', { timeout: 90_000 }, async () => {
    const person = await signedInPerson(server);
    const org = person.organizationId;
    const receiver = await startReceiver();
    receivers.push(receiver);
    const now = Math.floor(Date.now() / 1000);
    const promo = await person.client.json('POST', '/manage/api/promos', {
      slug: 'event-buyers',
      name: 'Buyers',
      starts_at: now - 60,
      ends_at: now + 86_400,
      tiers: [{ name: 'All', discount_percent: 10 }],
    });
    expect(promo.status, JSON.stringify(promo.body)).toBe(200);
    const slug = (promo.body as Body).slug as string;
    const created = await person.client.json('POST', '/manage/api/sequences', {
      key: 'sales',
      name: 'After a sale',
      actions: [
        { type: 'send_webhook', url: `${receiver.url}/crm`, payload: '{"email":"{{event.data.object.customer_email}}","type":"{{event.type}}","session":"{{event.data.object.id}}","number":{{event.data.object.invoice_number}}}' },
        { type: 'enrol_in_promo', promo: slug },
      ],
      triggers: [
        { key: 'paid', name: 'On a completed checkout', event_type: 'checkout.session.completed' },
        { key: 'form', name: 'A form' },
      ],
    });
    expect(created.status).toBe(200);
    const triggers = (created.body as Body).triggers as Body[];
    expect(triggers[0]).toMatchObject({ key: 'paid', event_type: 'checkout.session.completed', catch_url: null, catch_path: null });
    expect(triggers[1]!.catch_url).toMatch(/\/hooks\/catch\//);

    const listed = await person.client.json('GET', '/manage/api/triggers?trigger_type=event');
    expect((listed.body as Body).data).toEqual([expect.objectContaining({ id: triggers[0]!.trigger_id, trigger_type: 'event', event_type: 'checkout.session.completed', catch_url: null })]);

    const offer = await makeOffer(server, org);
    const session = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const sessionId = session.session.id as string;
    const paid = await server.fetch(`/api/checkout/sessions/${sessionId}/pay`, json({ email: 'Buyer@Example.com', name: 'Ada', card: GOOD_CARD }));
    expect(paid.status).toBe(200);

    await expect.poll(() => receiver.calls.length, { timeout: 30_000 }).toBe(1);
    const body = JSON.parse(receiver.calls[0]!.body) as Body;
    expect(body).toMatchObject({ email: 'Buyer@Example.com', type: 'checkout.session.completed', session: sessionId });
    expect(body.number).toBeTypeOf('number');

    await expect
      .poll(async () => (await server.services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: { organization_id: org } })).map((w) => w.status), { timeout: 30_000 })
      .toEqual(['completed']);
    const [workflow] = await server.services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: { organization_id: org } });
    expect(workflow!.trigger_id).toBe(triggers[0]!.trigger_id);
    expect(workflow!.steps[1]!.result).toMatchObject({ success: true, email: 'buyer@example.com', reference: sessionId });
    await server.settle();
    const participants = await server.services.readStore.find<{ id: string; email: string }>(PROMO_PARTICIPANTS, { filter: { slug } });
    expect(participants.map((p) => p.email)).toEqual(['buyer@example.com']);

    // The subscriber handles the same events again (as after a crash before its checkpoint moved):
    // nothing is recorded twice, nothing runs twice.
    const all = await server.services.store.readAll({ after: null, limit: 1_000_000, streamPrefixes: ['checkout_session-'] });
    const completed = all.filter((e) => e.type === 'CheckoutSessionCompleted' && e.stream.endsWith(sessionId));
    expect(completed).toHaveLength(1);
    await expect.poll(async () => (await server.services.store.readStream(eventReceptionStream(triggers[0]!.trigger_id, completed[0]!.id))).length, { timeout: 20_000 }).toBe(1);
    expect(await startEventTriggers(server.services, all)).toBe(0);
    expect(await server.services.store.readStream(eventReceptionStream(triggers[0]!.trigger_id, completed[0]!.id))).toHaveLength(1);
    await server.settle();
    expect(await server.services.readStore.find(WORKFLOWS, { filter: { organization_id: org } })).toHaveLength(1);
    expect(receiver.calls).toHaveLength(1);
  });

  it('a workflow.failed trigger starts on a failed workflow, but not on the failure of a workflow it started', { timeout: 90_000 }, async () => {
    const person = await signedInPerson(server);
    const org = person.organizationId;
    // 10.0.0.1 is a private address, refused without a call: the step fails at once.
    const failing = { type: 'send_webhook', url: 'http://10.0.0.1/hook', payload: '{}' };
    const form = await person.client.json('POST', '/manage/api/sequences', { key: 'form', name: 'Form', actions: [failing], triggers: [{ key: 'form', name: 'Form' }] });
    const onFailure = await person.client.json('POST', '/manage/api/sequences', {
      key: 'alerts',
      name: 'Alert on failures',
      actions: [failing],
      triggers: [{ key: 'failed', name: 'On a failure', event_type: 'workflow.failed' }],
    });
    expect(onFailure.status).toBe(200);
    const catchUrl = ((form.body as Body).triggers as Body[])[0]!.catch_url as string;
    expect((await fetch(catchUrl, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } })).status).toBe(200);

    const workflows = () => server.services.readStore.find<WorkflowDoc>(WORKFLOWS, { filter: { organization_id: org } });
    await expect.poll(async () => (await workflows()).map((w) => w.status), { timeout: 30_000 }).toEqual(['failed', 'failed']);
    // The subscriber has looked past the second failure: it started nothing for it.
    const failures = (await server.services.store.readAll({ after: null, limit: 1_000_000, streamPrefixes: ['automation_workflow-'] })).filter(
      (e) => e.type === 'WorkflowFailed' && e.metadata.organization_id === org,
    );
    expect(failures).toHaveLength(2);
    await expect.poll(async () => (await server.services.readStore.readCheckpoint(EVENT_TRIGGER_CHECKPOINT)) ?? 0, { timeout: 20_000 }).toBeGreaterThanOrEqual(failures[1]!.position);
    await server.settle();
    expect(await workflows()).toHaveLength(2);
  });

  it('refuses an unknown event type, and a trigger key re-imported as the other kind', async () => {
    const person = await signedInPerson(server);
    const bad = await person.client.json('POST', '/manage/api/sequences', { key: 's', name: 'S', triggers: [{ key: 't', name: 'T', event_type: 'order.shipped' }] });
    expect(bad.status).toBe(422);
    expect(JSON.stringify(bad.body)).toContain('triggers');
    const ok = await person.client.json('POST', '/manage/api/sequences', { key: 's', name: 'S', triggers: [{ key: 't', name: 'T', event_type: 'invoice.paid' }] });
    expect(ok.status).toBe(200);
    const changed = await person.client.json('POST', '/manage/api/sequences', { key: 's', name: 'S', triggers: [{ key: 't', name: 'T' }] });
    expect(changed.status).toBe(422);
    expect(JSON.stringify(changed.body)).toContain('Trigger t exists as an event trigger on invoice.paid');
  });
});
