import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { createPromo, enrolParticipant } from '../../modules/promos/promoCommands.ts';
import { CHROMIUM_ARGS, findChromium, type FoundChromium } from '../helpers/chromium.ts';
import type { TestServer } from '../helpers/testServer.ts';

let found: Promise<FoundChromium> | null = null;

/**
 * Chromium through playwright-core, with a fresh profile each launch; which Chromium is
 * test/helpers/chromium.ts's choice. Without one it throws one line saying how to get one, so
 * call it first in a beforeAll: the file then fails at once.
 */
/**
 * `locale: null` leaves the browser its own language (from LANG: `en-US@posix` under LANG=C), to
 * test pages against a tag Intl refuses; `env` adds to the browser's environment.
 */
export async function launchChromium(
  options: { locale?: string | null; env?: Record<string, string> } = {},
): Promise<{ context: BrowserContext; close(): Promise<void> }> {
  found ??= findChromium();
  const browser = await found;
  const profile = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  let context: BrowserContext;
  try {
    // playwright passes the fresh profile as --user-data-dir itself.
    context = await chromium.launchPersistentContext(profile, {
      executablePath: browser.executablePath,
      env: { ...process.env, ...browser.env, ...options.env },
      headless: true,
      // The prices the tests read are en-US; the bundled Chromium would take navigator.language
      // from LANG, and an unset LANG gives 'en-US@posix', which Intl refuses.
      ...(options.locale === null ? {} : { locale: options.locale ?? 'en-US' }),
      viewport: { width: 1200, height: 800 },
      args: CHROMIUM_ARGS,
      timeout: 60_000,
    });
  } catch (error) {
    rmSync(profile, { recursive: true, force: true });
    const first = (error instanceof Error ? error.message : String(error)).split('\n')[0];
    throw new Error(`Chromium ${browser.executablePath} (from ${browser.source}) did not start: ${first}`, { cause: error });
  }
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** A published offer with every kind of page block, in the seller's theme. */
export async function seedOffer(
  server: TestServer,
  organizationId: string,
  slug: string,
  overrides: { name?: string; color?: string; amount?: number; currency?: string } = {},
): Promise<{ uuid: string; id: string; slug: string }> {
  const ctx = server.cliContext(organizationId);
  const offer = await upsertOffer(ctx, {
    organizationId,
    slug,
    name: overrides.name ?? 'Pro Plan',
    currency: overrides.currency ?? 'EUR',
    theme: {
      primary_color: overrides.color ?? '#0f766e',
      background_color: '#f1f5f9',
      text_color: '#0f172a',
      font_family: 'Inter, system-ui',
      logo_url: null,
      button_text: 'Buy now',
    },
    plan: { product_id: 'prod_1', plan_id: 'plan_1', plan_name: 'Monthly', charges: [{ id: 'ch_1', name: 'Subscription', amount: overrides.amount ?? 4900 }] },
    pages: [
      {
        id: 'p1',
        type: 'checkout',
        title: overrides.name ?? 'Pro Plan',
        blocks: [
          { type: 'text', text: 'Everything you need to run your store, billed monthly. Cancel any time.' },
          { type: 'features', items: ['Unlimited products', 'Priority support', 'Custom domain'] },
          { type: 'price' },
        ],
      },
      { id: 'p2', type: 'upsell', title: 'Add the annual report', blocks: [{ type: 'text', text: 'A yearly review of your numbers.' }] },
      {
        id: 'p3',
        type: 'thank_you',
        title: 'Thank you!',
        blocks: [{ type: 'text', text: 'Your receipt is on its way to your inbox.' }],
      },
    ],
  });
  await publishOffer(ctx, offer.uuid);
  await server.settle();
  return { uuid: offer.uuid, id: offer.id, slug };
}

/**
 * An active promo whose first tier holds for one participant, so enrolling one buyer moves it on;
 * it prices the offers the browser tests seed. It ends two hours after it is seeded; `endsAt`
 * (Unix seconds) is what a countdown is checked against.
 */
export async function seedPromo(server: TestServer, organizationId: string, slug: string, offers = ['pro-plan', 'starter-plan']): Promise<{ endsAt: number }> {
  const now = Math.floor(Date.now() / 1000);
  const endsAt = now + 2 * 3600;
  await createPromo(server.cliContext(organizationId), {
    organizationId,
    slug,
    name: 'Spring sale',
    startsAt: now - 60,
    endsAt,
    tiers: [
      { name: 'Early bird', price: 2900, discount_percent: null, until: null, max_participants: 1 },
      { name: 'Regular', price: null, discount_percent: 20, until: null, max_participants: null },
    ],
    offers,
  });
  await server.settle();
  return { endsAt };
}

export async function enrol(server: TestServer, organizationId: string, slug: string, email: string): Promise<void> {
  await enrolParticipant(server.cliContext(organizationId), { organizationId, slug, email, reference: null, workflowId: null });
  await server.settle();
}

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- page.evaluate bodies drive the untyped browser global
export type Loose = any;
/** The page's globals the tests use: the SDK, and the flows they started with what each emitted. */
type FlowWindow = Window & { sdk: Loose; flows: Record<string, Loose>; seen: Record<string, string[]> };
export type FlowResult = { status: string; session?: { id: string; status: string }; error?: { code: string; message: string } };

/**
 * A new page at `url` (at `viewport`, if given), its script errors collected into `errors`, once
 * `ready` holds in it, with the globals startFlow records flows and their events into.
 */
export async function openPage(
  context: BrowserContext,
  url: string,
  o: { errors: string[]; ready: () => unknown; viewport?: { width: number; height: number } },
): Promise<Page> {
  const page = await context.newPage();
  page.on('pageerror', (e) => o.errors.push(String(e)));
  if (o.viewport) await page.setViewportSize(o.viewport);
  await page.goto(url);
  await page.waitForFunction(o.ready);
  await page.evaluate(() => {
    const w = window as unknown as FlowWindow;
    w.flows = {};
    w.seen = {};
  });
  return page;
}

/** Starts a flow in the page under `name` (`call` is an SDK call, e.g. `sdk.present('x')`) and a `for await` consumer recording its event types. */
export async function startFlow(page: Page, name: string, call: string): Promise<void> {
  await page.evaluate(
    ([n, c]) => {
      const w = window as unknown as FlowWindow;
      const flow = new Function('sdk', `return ${c}`)(w.sdk);
      w.flows[n!] = flow;
      w.seen[n!] = [];
      void (async () => {
        for await (const ev of flow.events) w.seen[n!]!.push(ev.type);
      })();
    },
    [name, call],
  );
}

/** What the flow started under `name` resolved with. */
export const flowResult = (page: Page, name: string) =>
  page.evaluate((n) => (window as unknown as FlowWindow).flows[n].then((r: unknown) => r), name) as Promise<FlowResult>;
