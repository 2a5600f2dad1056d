import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { createPromo, enrolParticipant } from '../../modules/promos/promoCommands.ts';
import { json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from './webhookFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('event webhooks of every kind', () => {
  let server: TestServer;
  const clock = manualClock();
  beforeAll(async () => {
    server = await startTestServer({ clock, env: { ...WEBHOOK_ENV, CHECKOUT_EXPIRY_INTERVAL_MS: '100' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('announces an expired session and its voided invoice, a failed workflow and a promo enrolment', { timeout: 60_000 }, async () => {
    const org = await server.identity();
    const r = await startReceiver();
    try {
      const endpoint = await subscribe(server, org.organizationId, r.url, ['checkout.session.expired', 'invoice.voided', 'workflow.failed', 'promo.participant.enrolled']);
      await server.settle();
      const byType = (type: string) => r.calls.map((c) => verified(endpoint.secret, c)).find((b) => b.type === type);
      // Once the service's clock is moved a day on, its timestamps are outside the verifier's tolerance.
      const unverified = (type: string): Body | undefined => r.calls.map((c) => JSON.parse(c.body) as Body).find((b) => b.type === type);

      // A workflow whose only step calls a private address (refused by the SSRF guard) fails.
      const ctx = server.cliContext(org.organizationId);
      const action = { type: 'send_webhook' as const, url: 'http://10.0.0.1/internal', method: 'POST' as const, payload: '{}', headers: {}, signing_secret: null };
      const sequence = await createSequence(ctx, { organizationId: org.organizationId, name: 'Failing', actions: [action] });
      const trigger = await createTrigger(server.cliContext(org.organizationId), { organizationId: org.organizationId, sequenceId: sequence.id, name: 'Failing' });
      await server.settle();
      const caught = (await (await server.fetch(`/hooks/catch/${sequence.route_key}/${trigger.route_key}`, json({ email: 'x@example.com' }))).json()) as Body;
      await expect.poll(() => byType('workflow.failed'), { timeout: 20_000 }).toBeDefined();
      expect(byType('workflow.failed')!.data.object).toMatchObject({ workflow_id: caught.workflow_id, status: 'failed', steps: [{ step: 0, status: 'failed' }] });

      const now = Math.floor(clock() / 1000);
      await createPromo(server.cliContext(org.organizationId), {
        organizationId: org.organizationId,
        slug: 'hooks-launch',
        name: 'Launch',
        startsAt: now - 10,
        endsAt: now + 10_000,
        tiers: [{ name: 'Launch', price: null, discount_percent: 20, until: null, max_participants: null }],
      });
      await enrolParticipant(server.cliContext(org.organizationId), { organizationId: org.organizationId, slug: 'hooks-launch', email: 'fan@example.com', reference: 'ref-1', workflowId: null });
      await expect.poll(() => byType('promo.participant.enrolled'), { timeout: 20_000 }).toBeDefined();
      expect(byType('promo.participant.enrolled')!.data.object).toEqual({ promo: 'hooks-launch', email: 'fan@example.com', reference: 'ref-1', enrolled_at: expect.any(Number), workflow_id: null });

      const offer = await makeOffer(server, org.organizationId);
      const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug, customer: { email: 'late@example.com' } }))).json()) as Body;
      const id = created.session.id as string;
      const started = (await (await server.fetch(`/api/checkout/sessions/${id}/start`, json({}))).json()) as Body;
      clock.advance(25 * 3600 * 1000);
      await expect.poll(() => unverified('invoice.voided') && unverified('checkout.session.expired'), { timeout: 20_000 }).toBeDefined();
      expect(unverified('checkout.session.expired')!.data.object).toMatchObject({ id, status: 'expired', customer_email: 'late@example.com', invoice_number: started.invoice.number });
      expect(unverified('invoice.voided')!.data.object).toMatchObject({ id: started.invoice.id, status: 'void', session_id: id, payment: null });
    } finally {
      await r.close();
    }
  });
});
