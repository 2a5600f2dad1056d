import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe("the thank-you page's link to the receipt (no SMTP server: the email waits)", () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await server?.close({ remove: true });
  });

  it('takes the buyer holding the invoice and its session to the receipt page; anyone else gets 404', async () => {
    const { organizationId } = await server.identity('Thanks Shop');
    const offer = await makeOffer(server, organizationId);
    const page = await (await server.fetch(`/checkout/${offer.slug}`)).text();
    expect(page).toContain('<a id="co-receipt-link" target="_blank" rel="noopener noreferrer">View your receipt</a>');

    const session = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
    const paid = (await (await server.fetch(`/api/checkout/sessions/${session.id}/pay`, json({ email: 'thanks@example.com', name: 'T', card: GOOD_CARD }))).json()) as Body;
    const invoiceId = (paid.invoice as Body).id as string;

    // Straight after the payment: the outbox may not have queued the receipt yet; the link queues it.
    const link = await server.fetch(`/receipts/for-invoice/${invoiceId}?session=${session.id}`, { redirect: 'manual' });
    expect(link.status).toBe(303);
    expect(link.headers.get('cache-control')).toBe('no-store');
    expect(link.headers.get('referrer-policy')).toBe('no-referrer');
    const location = link.headers.get('location')!;
    expect(location).toMatch(/^\/receipts\/[A-Za-z0-9_-]{32}$/);
    const receipt = await server.fetch(location, { headers: { accept: 'text/html' } });
    expect(receipt.status).toBe(200);
    expect(await receipt.text()).toContain('Thanks Shop');
    // Once, whoever queued it.
    await server.settle();
    const queued = (await server.services.store.readStream(`receipt-${invoiceId}`)).filter((e) => e.type === 'ReceiptQueued');
    expect(queued).toHaveLength(1);
    const again = await server.fetch(`/receipts/for-invoice/${invoiceId}?session=${session.id}`, { redirect: 'manual' });
    expect(again.headers.get('location')).toBe(location);

    // Another session's id, or none: nothing to see.
    const other = ((await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body).session as Body;
    const wrong = await server.fetch(`/receipts/for-invoice/${invoiceId}?session=${other.id}`, { redirect: 'manual' });
    expect(wrong.status).toBe(404);
    expect(wrong.headers.get('cache-control')).toBe('no-store');
    expect((await server.fetch(`/receipts/for-invoice/${invoiceId}`, { redirect: 'manual' })).status).toBe(422);
    expect((await server.fetch(`/receipts/for-invoice/in_nothing?session=${session.id}`, { redirect: 'manual' })).status).toBe(404);
  });
});
