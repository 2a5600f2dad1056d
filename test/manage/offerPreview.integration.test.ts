import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

const draft = (extra: Record<string, unknown> = {}) => ({
  slug: 'not-saved-yet',
  name: 'Draft <b>offer</b>',
  product: 'pro',
  plan: 'monthly',
  theme: { primary_color: '#0f766e' },
  pages: [
    { id: 'main', type: 'checkout', title: 'Checkout', blocks: [{ type: 'heading', text: 'Ship faster' }, { type: 'price' }] },
    { id: 'more', type: 'upsell', title: 'One more thing', blocks: [{ type: 'text', text: 'Add the annual plan' }] },
  ],
  ...extra,
});

/** The dashboard's live preview of an offer that is not saved: rendered, never recorded, its organization's only. */
describe('the live preview of a draft offer', () => {
  let server: TestServer;
  let owner: ManageClient;
  let stranger: ManageClient;
  const clock = manualClock();
  beforeAll(async () => {
    server = await startTestServer({ clock });
    owner = (await signedInPerson(server)).client;
    stranger = (await signedInPerson(server)).client;
    const product = { key: 'pro', name: 'Pro', plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 2900 }] }] };
    expect((await owner.json('POST', '/manage/api/products', product)).status).toBe(201);
  });
  afterAll(() => server.close({ remove: true }));

  it('renders the form as it stands in preview mode, framable by this origin only, and records nothing', async () => {
    const before = (await server.services.store.readAll({ after: null, limit: 100_000 })).length;
    const made = await owner.json<{ url: string; expires_at: number }>('POST', '/manage/api/offers/preview', draft());
    expect(made.status).toBe(201);
    expect(made.body.url).toMatch(/^\/manage\/api\/offers\/preview\/[A-Za-z0-9_-]{32}$/);

    const page = await owner.request('GET', made.body.url);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    expect(csp).toMatch(/frame-ancestors 'self'$/);
    expect(csp).toMatch(/script-src 'nonce-/);
    expect(page.headers.get('x-frame-options')).toBe('SAMEORIGIN');
    const html = await page.text();
    expect(html).toContain('Ship faster');
    expect(html).toContain('Add the annual plan'); // every page of the offer, as preview mode shows them
    expect(html).toContain('Draft &lt;b&gt;offer&lt;/b&gt;'); // the seller's text, escaped
    expect(html).toContain('Payments are off in preview');
    expect(html).toMatch(/per month/); // the plan's interval, from the catalog

    // Nothing recorded: no offer, no session, no event.
    expect((await server.services.store.readAll({ after: null, limit: 100_000 })).length).toBe(before);
    expect((await owner.json('GET', '/manage/api/offers/not-saved-yet')).status).toBe(404);
  });

  it("answers another organization's preview as an expired one, and needs a session", async () => {
    const made = await owner.json<{ url: string }>('POST', '/manage/api/offers/preview', draft());
    const theirs = await stranger.request('GET', made.body.url);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).not.toContain('Ship faster');
    const unknown = await owner.request('GET', `/manage/api/offers/preview/${'A'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect((await fetch(`${server.url}${made.body.url}`)).status).toBe(401);
  });

  it('shows a draft from any process on the same data (behind a load balancer), until it expires', { timeout: 60_000 }, async () => {
    const made = await owner.json<{ url: string; expires_at: number }>('POST', '/manage/api/offers/preview', draft());
    expect(made.body.expires_at).toBe(Math.floor((clock() + 15 * 60 * 1000) / 1000));
    const other = await startTestServer({ dataDir: server.dataDir, clock, runProjections: false });
    try {
      const seen = await fetch(`${other.url}${made.body.url}`, { headers: { cookie: `commerce_session=${owner.cookie}` } });
      expect(seen.status).toBe(200);
      expect(await seen.text()).toContain('Ship faster');
    } finally {
      await other.close();
    }
    // Only the token's hash is stored.
    const token = made.body.url.split('/').at(-1)!;
    const stored = await server.services.readStore.find('offer_previews', {});
    expect(stored.length).toBeGreaterThan(0);
    expect(JSON.stringify(stored)).not.toContain(token);

    clock.advance(15 * 60 * 1000);
    const expired = await owner.request('GET', made.body.url);
    expect(expired.status).toBe(404);
    expect(await expired.text()).toContain('This preview has expired');
  });

  it('keeps the 50 latest drafts of an organization', { timeout: 60_000 }, async () => {
    const urls: string[] = [];
    for (let i = 0; i < 51; i++) {
      clock.advance(1);
      urls.push((await owner.json<{ url: string }>('POST', '/manage/api/offers/preview', draft())).body.url);
    }
    expect((await owner.request('GET', urls[0]!)).status).toBe(404);
    expect((await owner.request('GET', urls[1]!)).status).toBe(200);
    expect((await owner.request('GET', urls[50]!)).status).toBe(200);
  });

  it('refuses an invalid draft with the import\'s field errors', async () => {
    const bad = await owner.json<{ errors: Record<string, string[]> }>('POST', '/manage/api/offers/preview', draft({ theme: { primary_color: 'teal' }, pages: [] }));
    expect(bad.status).toBe(422);
    expect(Object.keys(bad.body.errors)).toEqual(expect.arrayContaining(['theme.primary_color', 'pages']));
    const noCsrf = await fetch(`${server.url}/manage/api/offers/preview`, {
      method: 'POST',
      headers: { cookie: `commerce_session=${owner.cookie}`, 'content-type': 'application/json', 'sec-fetch-site': 'same-origin' },
      body: JSON.stringify(draft()),
    });
    expect(noCsrf.status).toBe(403);
  });
});
