import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBenefit } from '../../modules/benefits/benefitCommands.ts';
import { grantIdFor } from '../../modules/benefits/index.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { eventPayloadSchema } from '../../modules/webhooks/http/webhookSchemas.ts';
import { GOOD_CARD, json } from '../checkout/checkoutFixtures.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startReceiver } from '../helpers/receiver.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { subscribe, verified, WEBHOOK_ENV } from '../webhooks/webhookFixtures.ts';
import { oneTimeProduct } from './benefitFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('benefit.granted and benefit.revoked', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: WEBHOOK_ENV });
  });
  afterAll(() => server.close({ remove: true }));

  it('announces each grant and its revocation with the grant object, and starts event triggers on them', { timeout: 90_000 }, async () => {
    const person = await signedInPerson(server);
    const organizationId = person.organizationId;
    const r = await startReceiver();
    const crm = await startReceiver();
    try {
      const endpoint = await subscribe(server, organizationId, r.url, ['benefit.granted', 'benefit.revoked']);
      const sequence = await person.client.json('POST', '/manage/api/sequences', {
        key: 'deliver',
        name: 'On a grant',
        actions: [{ type: 'send_webhook', url: `${crm.url}/granted`, payload: '{"grant":"{{event.data.object.id}}","benefit":"{{event.data.object.benefit_id}}","customer":"{{event.data.object.customer_id}}"}' }],
        triggers: [{ key: 'granted', name: 'A benefit is granted', event_type: 'benefit.granted' }],
      });
      expect(sequence.status, JSON.stringify(sequence.body)).toBe(200);

      const productId = await oneTimeProduct(server, organizationId, 'zine');
      const { benefit } = await createBenefit(server.cliContext(organizationId), { organizationId, product: productId, type: 'file', description: 'The PDF', properties: { files: ['file_zine'] } });
      const session = (await (await server.fetch('/api/checkout/sessions', json({ offer: 'zine' }))).json()) as Body;
      const sessionId = session.session.id as string;
      const paid = (await (await server.fetch(`/api/checkout/sessions/${sessionId}/pay`, json({ email: 'ada@example.com', card: GOOD_CARD }))).json()) as Body;
      const grantId = grantIdFor(benefit.id, { type: 'checkout_session', id: sessionId });

      await expect.poll(() => r.calls.length, { timeout: 30_000 }).toBe(1);
      const granted = verified(endpoint.secret, r.calls[0]!);
      expect(granted.type).toBe('benefit.granted');
      expect(granted.organization_id).toBe(organizationId);
      expect(granted.data.object).toEqual({
        id: grantId,
        object: 'benefit_grant',
        benefit_id: benefit.id,
        benefit_type: 'file',
        product_id: productId,
        customer_id: expect.stringMatching(/^cus_/),
        source: { type: 'checkout_session', id: sessionId },
        status: 'granted',
        granted_at: expect.any(Number),
        revoked_at: null,
        revoke_cause: null,
      });
      expect(eventPayloadSchema('benefit.granted').safeParse(granted).success).toBe(true);

      await expect.poll(() => crm.calls.length, { timeout: 30_000 }).toBe(1);
      expect(JSON.parse(crm.calls[0]!.body)).toEqual({ grant: grantId, benefit: benefit.id, customer: granted.data.object.customer_id });

      await refundInvoice(server.cliContext(organizationId), server.services, organizationId, paid.invoice.id as string, 1500);
      await expect.poll(() => r.calls.length, { timeout: 30_000 }).toBe(2);
      const revoked = verified(endpoint.secret, r.calls[1]!);
      expect(revoked.type).toBe('benefit.revoked');
      expect(revoked.data.object).toMatchObject({ id: grantId, status: 'revoked', revoke_cause: 'refund', revoked_at: expect.any(Number) });
      expect(eventPayloadSchema('benefit.revoked').safeParse(revoked).success).toBe(true);
    } finally {
      await r.close();
      await crm.close();
    }
  });
});
