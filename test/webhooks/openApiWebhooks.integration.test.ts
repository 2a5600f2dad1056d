import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WEBHOOK_EVENT_TYPES } from '../../modules/webhooks/domain/eventTypes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the OpenAPI document', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('describes every event webhook: its headers and its payload with the object', async () => {
    const doc = (await (await server.fetch('/api/openapi.json')).json()) as Body;
    // `webhooks` is an OpenAPI 3.1 section.
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.webhooks).sort()).toEqual([...WEBHOOK_EVENT_TYPES].sort());
    const completed = doc.webhooks['checkout.session.completed'].post;
    expect(completed.parameters.map((p: Body) => p.name)).toEqual(['webhook-id', 'webhook-timestamp', 'webhook-signature']);
    const schema = completed.requestBody.content['application/json'].schema;
    expect(schema.required).toEqual(expect.arrayContaining(['id', 'type', 'created', 'organization_id', 'data']));
    const object = schema.properties.data.properties.object;
    expect(Object.keys(object.properties)).toEqual(expect.arrayContaining(['id', 'status', 'customer_email', 'invoice_number', 'invoice', 'offer']));
    // A checkout's invoice, or a subscription's (renewal, plan change) with its sequence.
    const [invoice, subscriptionInvoice] = doc.webhooks['invoice.paid'].post.requestBody.content['application/json'].schema.properties.data.properties.object.anyOf;
    expect(Object.keys(invoice.properties)).toEqual(expect.arrayContaining(['number', 'total', 'customer', 'session_id']));
    expect(Object.keys(subscriptionInvoice.properties)).toEqual(expect.arrayContaining(['number', 'subscription', 'billing_reason', 'lines', 'attempts', 'sequence']));
    const updated = doc.webhooks['customer.subscription.updated'].post.requestBody.content['application/json'].schema.properties.data.properties.object;
    expect(Object.keys(updated.properties)).toEqual(expect.arrayContaining(['status', 'entitled', 'sequence', 'current_period_end']));
    // The session list documents the same new fields.
    const list = doc.paths['/api/checkout/sessions'].get.responses['200'].content['application/json'].schema;
    expect(Object.keys(list.properties.data.items.properties)).toEqual(expect.arrayContaining(['customer_email', 'invoice_number']));
  });
});
