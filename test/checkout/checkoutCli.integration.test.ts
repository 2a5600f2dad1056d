import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { encodeRouteKey } from '../../platform/lib/routeKeys.ts';
import { offerSlugStream, SLUG } from '../../modules/checkout/domain/offer.ts';
import { GOOD_CARD, json, legacyOffer, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const catalogFile = {
  products: [
    {
      key: 'course',
      display_name: 'Video course',
      plans: [
        { name: 'once', display_name: 'Course', type: 'one_time', invoice_interval: 'P1Y', currency_code: 'USD', charges: [{ amount: 4900 }, { amount: 100 }] },
      ],
    },
  ],
  offers: [
    {
      slug: 'course-launch',
      name: 'Course launch',
      product: 'course',
      plan: 'once',
      theme: { primary_color: '#ff5500' },
      pages: [{ id: 'pay', type: 'checkout', title: 'Buy the course', blocks: [{ type: 'price' }] }],
    },
  ],
};

// Each case starts up to six CLI processes, one after the other: up to 14 s each on a loaded
// two-core machine (measured beside a full run), so the 30-s default is too close.
describe('commerce CLI: offers import, publish/archive, demo offer, replay', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-checkout-cli-'));
  const commerce = (...args: string[]) => runCli(args, { DATA_DIR: dataDir });
  let server: TestServer;
  let demo: Body;

  beforeAll(async () => {
    const result = await commerce('demo', '--json');
    expect(result.code).toBe(0);
    demo = JSON.parse(result.stdout) as Body;
    server = await startTestServer({ dataDir, env: { CHECKOUT_RATE_LIMIT: '10000' } });
  });
  afterAll(async () => {
    await server?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('demo --json names a published offer beside the other keys', async () => {
    expect(Object.keys(demo)).toEqual(expect.arrayContaining(['organization', 'user', 'token', 'products', 'offer']));
    expect(demo.offer).toMatchObject({ slug: 'demo-pro-monthly' });
    const response = await server.fetch(`/api/checkout?offer=${demo.offer.id}`);
    expect(response.status).toBe(200);
    expect(((await response.json()) as Body).offer).toEqual({ id: demo.offer.id, slug: 'demo-pro-monthly', name: 'Pro monthly' });
    const again = JSON.parse((await commerce('demo', '--json')).stdout) as Body;
    expect(again.offer).toEqual(demo.offer);
  });

  it("the demo promo's tier lowers the demo offer's price, as a launch promo should", async () => {
    const plain = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ offer: 'demo-pro-monthly' }) });
    const promoted = await server.fetch('/api/checkout/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offer: 'demo-pro-monthly', promo: 'demo-launch' }),
    });
    expect([plain.status, promoted.status]).toEqual([201, 201]);
    const totalOf = async (r: Response) => ((await r.json()) as { session: { total: number } }).session.total;
    const [full, early] = [await totalOf(plain), await totalOf(promoted)];
    expect(early).toBeLessThan(full);
  });

  it('demo runs again after its offer was archived, leaving it archived and its checkout lines out', async () => {
    const other = mkdtempSync(join(tmpdir(), 'commerce-demo-archived-'));
    try {
      const run = (...args: string[]) => runCli(args, { DATA_DIR: other });
      expect((await run('demo', '--json')).code).toBe(0);
      expect((await run('offer', 'archive', 'demo-pro-monthly')).code).toBe(0);
      const again = await run('demo', '--json');
      expect(again.code, again.stderr).toBe(0);
      const offer = (JSON.parse(again.stdout) as Body).offer;
      expect(offer).toMatchObject({ slug: 'demo-pro-monthly', status: 'archived', id: expect.stringMatching(/^[A-Za-z0-9]{6,}$/) });
      const readable = await run('demo');
      expect(readable.code).toBe(0);
      expect(readable.stdout).not.toContain('/api/checkout');
      expect(readable.stdout).toContain('The demo offer demo-pro-monthly is archived');
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('imports offers by product key and plan name; publish and archive drive the public routes', async () => {
    const file = join(dataDir, 'course.json');
    writeFileSync(file, JSON.stringify(catalogFile));
    const imported = await commerce('import', file, '--org', 'org_demo');
    expect(imported.stderr).toBe('');
    expect(imported.stdout).toMatch(/created\s+offer course-launch \(\w+\)/);
    await server.settle();
    expect((await server.fetch('/api/checkout?offer=course-launch')).status).toBe(404);

    expect((await commerce('offer', 'publish', 'course-launch')).stdout).toMatch(/offer course-launch \(\w+\) published/);
    await new Promise((r) => setTimeout(r, 50));
    await server.settle();
    const init = (await (await server.fetch('/api/checkout?offer=course-launch')).json()) as Body;
    expect(init.theme).toEqual({
      primary_color: '#ff5500',
      background_color: '#ffffff',
      text_color: '#1f2937',
      font_family: 'system-ui, sans-serif',
      logo_url: null,
      button_text: 'Pay now',
    });
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: 'course-launch' }))).json()) as Body;
    expect(created.session).toMatchObject({ total: 5000, currency: 'USD' });

    expect((await commerce('offer', 'archive', init.offer.id)).stdout).toMatch(/archived/);
    await server.settle();
    expect((await server.fetch('/api/checkout?offer=course-launch')).status).toBe(404);
    const republish = await commerce('offer', 'publish', 'course-launch');
    expect(republish.code).toBe(1);
    expect(republish.stderr).toContain('An archived offer cannot be published again.');
  });

  it('refuses an offers section naming an unknown product or plan, listing each problem', async () => {
    const file = join(dataDir, 'bad.json');
    writeFileSync(
      file,
      JSON.stringify({
        offers: [
          { ...catalogFile.offers[0], slug: 'bad-one', product: 'nope' },
          { ...catalogFile.offers[0], slug: 'bad-two', plan: 'nope' },
          { ...catalogFile.offers[0], slug: 'Bad Slug', theme: { primary_color: 'red' }, pages: [] },
        ],
      }),
    );
    const result = await commerce('import', file, '--org', 'org_demo');
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('offers[2].slug');
    expect(result.stderr).toContain('offers[2].theme.primary_color');
    const second = join(dataDir, 'bad2.json');
    writeFileSync(second, JSON.stringify({ offers: [{ ...catalogFile.offers[0], slug: 'bad-one', product: 'nope' }, { ...catalogFile.offers[0], slug: 'bad-two', plan: 'nope' }] }));
    const refs = await commerce('import', second, '--org', 'org_demo');
    expect(refs.code).toBe(1);
    expect(refs.stderr).toContain('offers[0].product');
    expect(refs.stderr).toContain('offers[1].plan');
  });

  it("refuses to import a slug that reads as another offer's UUID or a route key; offer publish ID finds the offer its UUID names", async () => {
    const stranger = await server.identity('Stranger');
    const routeKey = Array.from({ length: 1000 }, (_, n) => encodeRouteKey(n + 5000)).find((k) => SLUG.test(k))!;
    const file = join(dataDir, 'hijack.json');
    writeFileSync(
      file,
      JSON.stringify({
        products: catalogFile.products,
        offers: [
          { ...catalogFile.offers[0], slug: demo.offer.uuid, published: true },
          { ...catalogFile.offers[0], slug: routeKey, published: true },
        ],
      }),
    );
    const imported = await commerce('import', file, '--org', stranger.organizationId);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/offers\[0\]\.slug.*shape of a UUID/);
    expect(imported.stderr).toMatch(new RegExp(`offers\\[1\\]\\.slug.*'${routeKey}' reads as an offer route key`));
    expect(await server.services.store.readStream(offerSlugStream(demo.offer.uuid))).toEqual([]);

    // A slug stored before the rule does not stand in for the offer whose UUID it copies.
    const draft = await makeOffer(server, 'org_demo', { publish: false });
    await legacyOffer(server, stranger.organizationId, draft.uuid);
    const published = await commerce('offer', 'publish', draft.uuid);
    expect(published.stdout).toContain(`offer ${draft.slug} (${draft.id}) published`);
    await server.settle();
    const init = (await (await server.fetch(`/api/checkout?offer=${draft.uuid}`)).json()) as Body;
    expect(init.offer).toEqual({ id: draft.id, slug: draft.slug, name: 'Pro plan' });
  });

  it('replay session prints the history as a table, or JSON with --json, and --at the past state', async () => {
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: demo.offer.slug }))).json()) as Body;
    const id = created.session.id as string;
    await server.fetch(`/api/checkout/sessions/${id}/start`, { method: 'POST' });
    await server.fetch(`/api/checkout/sessions/${id}/pay`, json({ card: GOOD_CARD }));

    const table = await commerce('replay', 'session', id);
    expect(table.code).toBe(0);
    for (const type of ['CheckoutSessionCreated', 'CheckoutSessionStarted', 'InvoiceCreated', 'InvoicePaid', 'CheckoutSessionCompleted']) {
      expect(table.stdout).toContain(type);
    }
    expect(table.stdout).toMatch(/state at .*: completed/);
    const asJson = JSON.parse((await commerce('replay', 'session', id, '--json')).stdout) as Body;
    expect(asJson.state.status).toBe('completed');
    expect(asJson.data.at(-1).type).toBe('CheckoutSessionCompleted');
    const first = asJson.data[0].occurred_at as number;
    const past = JSON.parse((await commerce('replay', 'session', id, '--at', String(first - 1), '--json')).stdout) as Body;
    expect(past).toMatchObject({ state: null, data: [] });
    expect((await commerce('replay', 'session', 'cs_unknownunknownunknown00')).stderr).toContain('Checkout session not found.');
    expect((await commerce('replay', 'session', id, '--at', 'yesterday')).code).toBe(2);
  });
});
