import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { subscriptionDecider, subscriptionStream } from '../../modules/subscriptions/domain/subscription.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { fold } from '../../platform/domain/decider.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { startSmtpReceiver } from '../helpers/smtpReceiver.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';
import { buy, cookieFrom, csrfIn, portalOffers, signInLinkFrom } from './portalFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('the customer portal over HTTP', () => {
  let smtp: Awaited<ReturnType<typeof startSmtpReceiver>>;
  let server: TestServer;
  const clock = manualClock();
  let seller: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let offers: { monthly: string; ebook: string };
  let ada: Awaited<ReturnType<typeof buy>>;
  let adaEbook: Awaited<ReturnType<typeof buy>>;
  let grace: Awaited<ReturnType<typeof buy>>;

  beforeAll(async () => {
    smtp = await startSmtpReceiver();
    server = await startTestServer({ clock, env: { RECEIPT_POLL_INTERVAL_MS: '100', SMTP_URL: smtp.url } });
    seller = await server.identity('Acme Tools');
    other = await server.identity('Other Shop');
    offers = await portalOffers(server, seller.organizationId, 'acme');
    ada = await buy(server, offers.monthly, 'ada@example.com');
    adaEbook = await buy(server, offers.ebook, 'Ada@Example.com');
    grace = await buy(server, offers.monthly, 'grace@example.com', 'Grace');
    await server.settle();
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    await smtp?.close();
  });

  const portal = () => `/portal/${seller.organizationId}`;
  const html = (path: string, cookie = '') => server.fetch(path, { headers: { accept: 'text/html', ...(cookie ? { cookie } : {}) }, redirect: 'manual' });
  const form = (path: string, fields: Record<string, string>, options: { cookie?: string; origin?: string } = {}) =>
    server.fetch(path, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: options.origin ?? server.url, ...(options.cookie ? { cookie: options.cookie } : {}) },
      body: new URLSearchParams(fields).toString(),
    });
  const portalSession = (customer: string, body: Body = {}, token = seller.token) =>
    server.fetch(`/api/customers/${customer}/portal_sessions`, { method: 'POST', token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  const pathOf = (url: string) => new URL(url).pathname;
  /** Opens a link's page, presses its button, and returns the visit's cookie. */
  const signIn = async (linkPath: string) => {
    expect((await html(linkPath)).status).toBe(200);
    const opened = await form(linkPath, {});
    expect(opened.status).toBe(303);
    expect(opened.headers.get('location')).toBe(portal());
    return cookieFrom(opened);
  };
  const eventsOf = async (stream: string) => server.services.store.readStream(stream);
  /** Every event of the log as JSON text. */
  const allEventsText = async () => {
    const out: string[] = [];
    let after: number | null = null;
    for (;;) {
      const events = await server.services.store.readAll({ after, limit: 1000 });
      if (events.length === 0) return out.join('\n');
      out.push(...events.map((e) => JSON.stringify(e)));
      after = events.at(-1)!.position;
    }
  };

  it("makes a Stripe-shaped portal session whose one-time link opens the customer's portal", async () => {
    const made = await portalSession(ada.customerId, { return_url: 'https://app.example.com/account' });
    expect(made.status).toBe(201);
    expect(made.headers.get('cache-control')).toBe('no-store');
    const session = (await made.json()) as Body;
    const now = Math.floor(clock() / 1000);
    expect(session).toEqual({
      id: expect.stringMatching(/^bps_[A-Za-z0-9_-]{24}$/),
      object: 'billing_portal.session',
      customer: ada.customerId,
      url: expect.stringMatching(new RegExp(`/portal/${seller.organizationId}/session/[A-Za-z0-9_-]{32}$`)),
      return_url: 'https://app.example.com/account',
      created: now,
      expires_at: now + 300,
    });
    const link = pathOf(session.url as string);
    const page = await html(link);
    expect(page.headers.get('content-security-policy')).toMatch(/^default-src 'none'; style-src 'nonce-[^']+'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'$/);
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('<form method="post" action="' + link + '">');

    const opened = await form(link, {});
    expect(opened.status).toBe(303);
    const setCookie = opened.headers.get('set-cookie')!;
    expect(setCookie).toMatch(new RegExp(`^portal_visit=[A-Za-z0-9_-]{32}; Path=/portal/${seller.organizationId}; HttpOnly; SameSite=Strict; Max-Age=3600$`));
    const cookie = cookieFrom(opened);

    const home = await html(portal(), cookie);
    const text = await home.text();
    expect(home.status).toBe(200);
    expect(text).toContain('Signed in as ada@example.com');
    expect(text).toContain('<p id="seller">Acme Tools</p>');
    expect(text).toContain(`id="subscription-${ada.subscriptionId}"`);
    expect(text).toContain(`id="purchase-${adaEbook.sessionId}"`);
    expect(text).toContain(`id="purchase-${ada.sessionId}"`);
    // Grace's purchase is not Ada's.
    expect(text).not.toContain(grace.sessionId);
    expect(text).toContain('href="https://app.example.com/account"');

    // One time only, and neither the link's token nor the cookie is in the log.
    const again = await form(link, {});
    expect(again.status).toBe(404);
    expect(again.headers.get('set-cookie')).toBeNull();
    const log = await allEventsText();
    expect(log).not.toContain(link.split('/').at(-1)!);
    expect(log).not.toContain(cookie.split('=')[1]!);
  });

  it('refuses a link after five minutes, from another site, or on another organization’s portal', async () => {
    const late = pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url);
    clock.advance(300_000);
    expect((await html(late)).status).toBe(404);
    expect((await form(late, {})).status).toBe(404);

    const crossSite = pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url);
    const refused = await form(crossSite, {}, { origin: 'https://evil.example' });
    expect(refused.status).toBe(403);
    expect(refused.headers.get('set-cookie')).toBeNull();
    // Still usable from its own page.
    expect((await form(crossSite, {})).status).toBe(303);

    const token = pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url).split('/').at(-1)!;
    expect((await html(`/portal/${other.organizationId}/session/${token}`)).status).toBe(404);
    expect((await form(`/portal/${other.organizationId}/session/${token}`, {})).status).toBe(404);
  });

  it('answers 404 for a customer of another organization or none, 422 for a bad return_url, 401 without a credential', async () => {
    expect((await portalSession(ada.customerId, {}, other.token)).status).toBe(404);
    const unknown = await portalSession('cus_doesnotexist1');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ message: 'Customer not found.' });
    const bad = await portalSession(ada.customerId, { return_url: 'javascript:alert(1)' });
    expect(bad.status).toBe(422);
    expect(((await bad.json()) as Body).errors).toHaveProperty('return_url');
    expect((await portalSession('not-a-customer')).status).toBe(422);
    const anonymous = await server.fetch(`/api/customers/${ada.customerId}/portal_sessions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(anonymous.status).toBe(401);
  });

  it('emails a one-time sign-in link to a known address and answers an unknown one alike', async () => {
    const unknown = await form(`${portal()}/sign-in`, { email: 'nobody@example.com' });
    const known = await form(`${portal()}/sign-in`, { email: 'ADA@example.com' });
    expect(known.status).toBe(unknown.status);
    expect(known.status).toBe(200);
    const strip = (t: string) => t.replace(/nonce-[^']+'/g, '').replace(/nonce="[^"]+"/g, '').replace(/nobody@example\.com|ADA@example\.com/g, 'EMAIL');
    expect(strip(await known.text())).toBe(strip(await unknown.text()));
    const headerNames = (r: Response) => [...r.headers.keys()].filter((h) => !['date', 'x-request-id', 'content-length', 'content-security-policy'].includes(h)).sort();
    expect(headerNames(known)).toEqual(headerNames(unknown));

    const link = await signInLinkFrom(smtp.accepted, 'ada@example.com');
    const mail = smtp.accepted.find((m) => m.to.includes('ada@example.com') && /Sign in to your account/.test(m.raw))!;
    expect(mail.raw).toContain('Subject: Sign in to your account with Acme Tools');
    // The unknown address asked first and got nothing; the known one's email came.
    expect(smtp.accepted.filter((m) => m.to.includes('nobody@example.com'))).toEqual([]);
    // The link is in the email only: the queued notice holds it sealed.
    const token = link.split('/').at(-1)!;
    expect(await allEventsText()).not.toContain(token);

    const cookie = await signIn(link);
    expect(await (await html(portal(), cookie)).text()).toContain('Signed in as ada@example.com');
    expect((await form(link, {})).status).toBe(404);
  });

  it("puts the configured origin in the emailed link, never the request's Host", async () => {
    const forged = await server.app.inject({
      method: 'POST',
      url: `${portal()}/sign-in`,
      headers: { host: 'evil.example', 'content-type': 'application/x-www-form-urlencoded' },
      payload: 'email=grace%40example.com',
    });
    expect(forged.statusCode).toBe(200);
    await signInLinkFrom(smtp.accepted, 'grace@example.com');
    const mail = smtp.accepted.find((m) => m.to.includes('grace@example.com') && /Sign in to your account/.test(m.raw))!;
    expect(mail.raw).not.toContain('evil.example');
    expect(mail.raw).toContain(`http://127.0.0.1:3000/portal/${seller.organizationId}/session/`);
  });

  it('refuses a malformed address with 422, and rate limits sign-in requests per address', async () => {
    const bad = await form(`${portal()}/sign-in`, { email: 'not an email' });
    expect(bad.status).toBe(422);
    expect(await bad.text()).toContain('aria-invalid="true"');
    const statuses: number[] = [];
    for (let i = 0; i < 6; i += 1) statuses.push((await form(`${portal()}/sign-in`, { email: 'limited@example.com' })).status);
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429]);
    expect((await form(`${portal()}/sign-in`, { email: 'other@example.com' })).status).toBe(200);
  });

  it("cancels at period end and takes it back, as the customer, only with the visit's CSRF token", async () => {
    const cookie = await signIn(pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url));
    const page = await (await html(portal(), cookie)).text();
    const csrf = csrfIn(page);
    expect(csrf).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const cancel = `${portal()}/subscriptions/${ada.subscriptionId}/cancel`;
    const before = (await eventsOf(subscriptionStream(ada.subscriptionId!))).length;

    expect((await form(cancel, { csrf: 'wrong' }, { cookie })).status).toBe(403);
    expect((await form(cancel, {}, { cookie })).status).toBe(403);
    expect((await form(cancel, { csrf }, { cookie, origin: 'https://evil.example' })).status).toBe(403);
    expect((await form(cancel, { csrf })).status).toBe(403);
    expect((await eventsOf(subscriptionStream(ada.subscriptionId!))).length).toBe(before);

    const done = await form(cancel, { csrf }, { cookie });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`${portal()}?done=canceled`);
    const scheduled = (await eventsOf(subscriptionStream(ada.subscriptionId!))).at(-1)!;
    expect(scheduled.type).toBe('SubscriptionCancelScheduled');
    expect(scheduled.metadata.actor).toEqual({ type: 'customer', id: ada.customerId });
    const after = await (await html(`${portal()}?done=canceled`, cookie)).text();
    expect(after).toContain('Your subscription is canceled at the end of the period.');
    expect(after).toContain(`id="keep-${ada.subscriptionId}"`);

    expect((await form(`${portal()}/subscriptions/${ada.subscriptionId}/reactivate`, { csrf }, { cookie })).status).toBe(303);
    const undone = (await eventsOf(subscriptionStream(ada.subscriptionId!))).at(-1)!;
    expect(undone.type).toBe('SubscriptionCancelUnscheduled');
    expect(undone.metadata.actor).toEqual({ type: 'customer', id: ada.customerId });

    // The history route shows who did it.
    const history = await server.fetch(`/api/subscriptions/${ada.subscriptionId}/history`, { token: seller.token });
    expect(history.status).toBe(200);
    expect(((await history.json()) as Body).data.at(-1).actor).toEqual({ type: 'customer', id: ada.customerId });

    // Another buyer's subscription reads as none.
    expect((await form(`${portal()}/subscriptions/${grace.subscriptionId}/cancel`, { csrf }, { cookie })).status).toBe(404);
    expect(fold(subscriptionDecider, (await eventsOf(subscriptionStream(grace.subscriptionId!))) as never)).toMatchObject({ cancel_at: null });

    // Signed out, the cookie opens nothing.
    expect((await form(`${portal()}/sign-out`, { csrf }, { cookie })).status).toBe(303);
    expect(await (await html(portal(), cookie)).text()).toContain('Email me a sign-in link');
    expect((await form(cancel, { csrf }, { cookie })).status).toBe(403);
  });

  it('saves a new card for the subscription, and says why a declined one was refused', async () => {
    const cookie = await signIn(pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url));
    const cardPage = await html(`${portal()}/subscriptions/${ada.subscriptionId}/card`, cookie);
    expect(cardPage.status).toBe(200);
    const csrf = csrfIn(await cardPage.text());
    const path = `${portal()}/subscriptions/${ada.subscriptionId}/card`;
    const declined = await form(path, { csrf, number: '4000 0000 0000 0002', exp: '12/40', cvc: '123' }, { cookie });
    expect(declined.status).toBe(402);
    expect(await declined.text()).toContain('id="error"');
    expect((await form(path, { csrf, number: '12', exp: '12/40', cvc: '123' }, { cookie })).status).toBe(422);

    const saved = await form(path, { csrf, number: '5555 5555 5555 4444', exp: '11/41', cvc: '123' }, { cookie });
    expect(saved.status).toBe(303);
    expect(saved.headers.get('location')).toBe(`${portal()}?done=card_saved`);
    const updated = (await eventsOf(subscriptionStream(ada.subscriptionId!))).filter((e) => e.type === 'SubscriptionPaymentMethodUpdated').at(-1)!;
    expect(updated.metadata.actor).toEqual({ type: 'customer', id: ada.customerId });
    expect((updated.data as Body).payment_method.card.last4).toBe('4444');
    expect(await (await html(portal(), cookie)).text()).toContain('ending in 4444');
  });

  it('follows the portal settings: owners set them, buyers get only what they allow', async () => {
    const read = await server.fetch('/api/portal_settings', { token: seller.token });
    expect(await read.json()).toEqual({ magic_link: true, subscription_cancel: true, payment_method_update: true, subscription_update: false, subscription_update_products: [] });
    const put = (body: Body) => server.fetch('/api/portal_settings', { method: 'PUT', token: seller.token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await put({ magic_link: true })).status).toBe(422);
    const changed = await put({ magic_link: false, subscription_cancel: false, payment_method_update: false, subscription_update: true });
    expect(changed.status).toBe(200);

    const cookie = await signIn(pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url));
    const page = await (await html(portal(), cookie)).text();
    expect(page).not.toContain(`id="cancel-${ada.subscriptionId}"`);
    expect(page).not.toContain(`id="card-${ada.subscriptionId}"`);
    expect(page).toContain(`id="switch-${ada.subscriptionId}"`);
    const csrf = csrfIn(page);
    const before = (await eventsOf(subscriptionStream(ada.subscriptionId!))).length;
    const refused = await form(`${portal()}/subscriptions/${ada.subscriptionId}/cancel`, { csrf }, { cookie });
    expect(refused.headers.get('location')).toBe(`${portal()}?done=not_allowed`);
    expect((await eventsOf(subscriptionStream(ada.subscriptionId!))).length).toBe(before);

    const pro = /<option value="([^"]+)">Pro: €29\.00 a month<\/option>/.exec(page)![1]!;
    const switched = await form(`${portal()}/subscriptions/${ada.subscriptionId}/change_plan`, { csrf, plan: pro }, { cookie });
    expect(switched.headers.get('location')).toBe(`${portal()}?done=switched`);
    const change = (await eventsOf(subscriptionStream(ada.subscriptionId!))).find((e) => e.type === 'SubscriptionPlanChanged')!;
    expect(change.metadata.actor).toEqual({ type: 'customer', id: ada.customerId });

    // No sign-in by email while the seller has it off.
    expect((await form(`${portal()}/sign-in`, { email: 'ada@example.com' })).status).toBe(403);
    await put({ magic_link: true, subscription_cancel: true, payment_method_update: true, subscription_update: false });
  });

  it('offers the plans of the other products the seller names, and moves the subscription to one', async () => {
    const put = (body: Body) => server.fetch('/api/portal_settings', { method: 'PUT', token: seller.token, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    const base = { magic_link: true, subscription_cancel: true, payment_method_update: true, subscription_update: true };
    const unknown = await put({ ...base, subscription_update_products: ['nosuchproduct'] });
    expect(unknown.status).toBe(422);
    expect(await unknown.json()).toMatchObject({ code: 'product_not_found', errors: { subscription_update_products: [expect.any(String)] } });
    const team = (await loadProductByKey(server.cliContext(seller.organizationId), seller.organizationId, 'acme-team'))!;
    // Named by UUID, kept (and answered) by id.
    const changed = await put({ ...base, subscription_update_products: [team.productId] });
    expect(await changed.json()).toMatchObject({ subscription_update_products: [team.routeKey] });

    const cookie = await signIn(pathOf(((await (await portalSession(ada.customerId)).json()) as Body).url));
    const page = await (await html(portal(), cookie)).text();
    const choice = /<option value="([^"]+)">Team, Team: €49\.00 a month<\/option>/.exec(page)![1]!;
    const switched = await form(`${portal()}/subscriptions/${ada.subscriptionId}/change_plan`, { csrf: csrfIn(page), plan: choice }, { cookie });
    expect(switched.headers.get('location')).toBe(`${portal()}?done=switched`);
    const change = (await eventsOf(subscriptionStream(ada.subscriptionId!))).filter((e) => e.type === 'SubscriptionPlanChanged').at(-1)!;
    expect((change.data as Body).to.plan).toMatchObject({ product_id: team.routeKey, plan_name: 'team' });
    await put({ ...base, subscription_update: false });
  });

  it('answers 404 for an unknown portal and shows the sign-in form without a visit', async () => {
    expect((await html('/portal/doesnotexist')).status).toBe(404);
    const page = await html(portal());
    expect(page.status).toBe(200);
    expect(page.headers.get('x-frame-options')).toBe('DENY');
    expect(await page.text()).toContain('<label for="email">Email address</label>');
  });

  it("paints the portal in the seller's brand colour, with text on it that contrasts, and the default blue without one", async () => {
    const styleOf = async (path: string) => {
      const page = await html(path);
      expect(page.status).toBe(200);
      const style = /<style nonce="[^"]+">([^<]*)<\/style>/.exec(await page.text())?.[1];
      expect(style).toBeDefined();
      return style!;
    };
    const otherPortal = `/portal/${other.organizationId}`;
    const defaults = await styleOf(otherPortal);
    expect(defaults).toContain(':root{--brand:#1d4ed8;--on-brand:#ffffff;--brand-link:#1d4ed8}');
    // Primary buttons, links and the header line take the variables.
    expect(defaults).toMatch(/button,\.button\{[^}]*background:var\(--brand\);color:var\(--on-brand\)/);
    expect(defaults).toMatch(/(^|[}\n])a\{color:var\(--brand-link\)\}/);
    expect(defaults).toMatch(/body\{[^}]*border-top:[^}]*var\(--brand\)/);

    const owner = await signedInPerson(server, { organizationId: other.organizationId });
    const setColour = async (brand_color: string | null) => expect((await owner.client.json('PATCH', '/manage/api/organization', { brand_color })).status).toBe(200);
    // A light yellow: near-black text on it, and near-black links on white (yellow is unreadable there).
    await setColour('#FFD500');
    expect(await styleOf(otherPortal)).toContain(':root{--brand:#ffd500;--on-brand:#111111;--brand-link:#111111}');
    // A dark green: white text on it, and links in the green itself.
    await setColour('#14532d');
    expect(await styleOf(otherPortal)).toContain(':root{--brand:#14532d;--on-brand:#ffffff;--brand-link:#14532d}');
    // Another seller's portal keeps its own (default) colours.
    expect(await styleOf(portal())).toContain('--brand:#1d4ed8;');
    await setColour(null);
    expect(await styleOf(otherPortal)).toContain(':root{--brand:#1d4ed8;--on-brand:#ffffff;--brand-link:#1d4ed8}');
  });
});
