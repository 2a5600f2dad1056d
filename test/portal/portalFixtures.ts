import { expect, vi } from 'vitest';
import { runImport } from '../../app/import/importFile.ts';
import { GOOD_CARD, offerContent } from '../checkout/checkoutFixtures.ts';
import { plainText, type ReceivedMail } from '../helpers/smtpReceiver.ts';
import type { TestServer } from '../helpers/testServer.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

export const WAIT = { timeout: 20_000, interval: 50 };

/** A published offer of a product with two monthly plans (Basic €19, Pro €29) and a one-time offer, imported as a seller would. */
export async function portalOffers(server: TestServer, organizationId: string, prefix: string) {
  const content = offerContent();
  await runImport(
    { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
    {
      products: [
        {
          key: `${prefix}-saas`,
          name: `${prefix} SaaS`,
          plans: [
            { name: 'basic', display_name: 'Basic', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] },
            { name: 'pro', display_name: 'Pro', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 2900 }] },
          ],
        },
        { key: `${prefix}-ebook`, name: `${prefix} Ebook`, plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 4900 }] }] },
        // Sold by no offer: a product a subscription may be moved to.
        { key: `${prefix}-team`, name: 'Team', plans: [{ name: 'team', display_name: 'Team', renew_interval: 'P1M', invoice_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 4900 }] }] },
      ],
      offers: [
        { slug: `${prefix}-monthly`, name: 'SaaS monthly', product: `${prefix}-saas`, plan: 'basic', theme: content.theme, pages: content.pages, published: true },
        { slug: `${prefix}-ebook`, name: 'The ebook', product: `${prefix}-ebook`, plan: 'once', theme: content.theme, pages: content.pages, published: true },
      ],
    },
  );
  await server.settle();
  return { monthly: `${prefix}-monthly`, ebook: `${prefix}-ebook` };
}

/** A buyer's checkout through the public routes, paid with the test provider: its session, invoice and subscription (if recurring). */
export async function buy(server: TestServer, offer: string, email: string, name = 'Ada Buyer') {
  const created = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offer }) });
  expect(created.status).toBe(201);
  const id = ((await created.json()) as Body).session.id as string;
  const paid = await server.fetch(`/api/checkout/sessions/${id}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email, name, card: GOOD_CARD }) });
  expect(paid.status).toBe(200);
  const body = (await paid.json()) as Body;
  const completed = (await server.services.store.readStream(`checkout_session-${id}`)).find((e) => e.type === 'CheckoutSessionCompleted')!.data as Body;
  return { sessionId: id, invoiceId: body.invoice.id as string, subscriptionId: (body.session.subscription?.id ?? null) as string | null, customerId: completed.customer_id as string };
}

/** The path of the portal link in the sign-in email to `to` (the link's origin is the configured one, not the test server's). */
export async function signInLinkFrom(accepted: ReceivedMail[], to: string): Promise<string> {
  let path = '';
  await vi.waitFor(() => {
    const mail = accepted.find((m) => m.to.includes(to) && /Sign in to your account/.test(m.raw));
    expect(mail).toBeDefined();
    const match = /https?:\/\/[^\s/]+(\/portal\/[^\s]+\/session\/[A-Za-z0-9_-]{32})/.exec(plainText(mail!.raw));
    expect(match).not.toBeNull();
    path = match![1]!;
  }, WAIT);
  return path;
}

/** The cookie a response sets, as `name=value` for the next request. */
export function cookieFrom(response: Response): string {
  const set = response.headers.get('set-cookie') ?? '';
  return set.split(';')[0]!;
}

/** The CSRF token in a portal page's forms. */
export const csrfIn = (html: string) => /name="csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
