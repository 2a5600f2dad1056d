/**
 * The dashboard's two budgets, measured in a real headless Chromium against a real server:
 *   1. the first load (sign-in page, empty cache) transfers at most 200 KB gzipped of script and style;
 *   2. the sales list of an organization with 100,000 checkout sessions shows its first page
 *      within 500 ms of navigation (median of several navigations with a warm cache; the cold
 *      first one is reported too).
 * The session documents are written straight into the read store (as the checkout projection
 * would), like bench/manageLists.ts: what is measured is the reading and the drawing.
 *
 *   node bin/run-ts.js bench/dashboard.ts [--runs 7]      (BENCH_DEBUG=1 prints each navigation's resource timings)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../app/httpApp.ts';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { inviteUser } from '../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../modules/identity/identityCommands.ts';
import { CHECKOUT_SESSIONS } from '../modules/checkout/checkoutProjection.ts';
import type { Doc, WriteOp } from '../platform/readStore/readStore.ts';
import { launchChromium } from '../test/sdk/sdkFixtures.ts';

const ORG = 'org_dash_bench';
const SESSIONS = 100_000;
export const FIRST_LOAD_BUDGET_KB = 200;
export const SALES_LIST_BUDGET_MS = 500;

function sessionDoc(i: number): Doc {
  const created = 1_700_000_000 + i * 30;
  const completed = i % 3 === 0;
  return {
    id: `cs_dash${i}`,
    organization_id: ORG,
    status: completed ? 'completed' : 'open',
    total: 1900 + (i % 7) * 500,
    currency: 'EUR',
    mode: 'test',
    expires_at: created + 86_400,
    created_at: created,
    offer: { uuid: 'u', id: 'xY3kQ9', slug: 'bench-offer', name: 'Bench offer' },
    customer: { email: `buyer${i % 5000}@example.com`, name: null, user_id: null },
    metadata: {},
    promo: null,
    promo_tier: null,
    started_at: null,
    cancelled_at: null,
    completed_at: completed ? created + 60 : null,
    expired_at: null,
    payment: null,
    last_decline: null,
    invoice: null,
    open_until: completed ? null : created + 86_400,
    updated_at: created,
    session_revision: 0,
    invoice_revision: null,
  };
}

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export type DashboardBench = { firstLoadKb: number; firstLoadFiles: number; salesListMs: number; salesListColdMs: number; runs: number };

export async function runDashboardBench(o: { runs?: number; log?: (line: string) => void } = {}): Promise<Array<{ figure: string; value: number; unit: string; ratio: string }>> {
  const f = await measureDashboard(o);
  return [
    { figure: 'first load: script + style transferred (gzipped)', value: f.firstLoadKb, unit: 'KB', ratio: `budget ${FIRST_LOAD_BUDGET_KB} KB` },
    { figure: `navigation to the sales list's first page at ${SESSIONS.toLocaleString('en-US')} sessions (warm cache)`, value: f.salesListMs, unit: 'ms', ratio: `budget ${SALES_LIST_BUDGET_MS} ms` },
    { figure: 'the same, cold cache (first visit)', value: f.salesListColdMs, unit: 'ms', ratio: `budget ${SALES_LIST_BUDGET_MS} ms` },
  ];
}

export async function measureDashboard(o: { runs?: number; log?: (line: string) => void } = {}): Promise<DashboardBench> {
  const runs = o.runs ?? 7;
  const log = o.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-dashboard-'));
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, logger: { error: () => undefined, info: () => undefined } });
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  const origin = `http://localhost:${port}`;
  let chrome: Awaited<ReturnType<typeof launchChromium>> | null = null;
  try {
    const ctx = { store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: ORG, occurred_at: Math.floor(Date.now() / 1000) } };
    await createOrganization(ctx, { id: ORG, name: 'Bench', timezone: 'UTC' });
    const user = await createUser(ctx, { email: 'dash-bench@example.com', organizationId: ORG });
    const { token } = await inviteUser(ctx, user.id);
    const started = Date.now();
    let checkpoint: number | null = null;
    for (let i = 0; i < SESSIONS; i += 5000) {
      const ops: WriteOp[] = Array.from({ length: Math.min(5000, SESSIONS - i) }, (_, n) => ({ op: 'upsert' as const, collection: CHECKOUT_SESSIONS, doc: sessionDoc(i + n) }));
      const next: number = (checkpoint ?? 0) + 1;
      await services.readStore.commit('dashboard_bench_seed', ops, { expected: checkpoint, next });
      checkpoint = next;
    }
    log(`seeded ${SESSIONS.toLocaleString('en-US')} sessions in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    // Built once before measuring: from source the assets are bundled on the first request.
    await fetch(`${origin.replace('localhost', '127.0.0.1')}/dashboard`).then((r) => r.text());

    chrome = await launchChromium();
    const context = chrome.context;

    // 1. First load, empty cache: every script and stylesheet the sign-in page pulls, as sent (gzip).
    const first = await context.newPage();
    const cdp = await context.newCDPSession(first);
    await cdp.send('Network.enable');
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
    const sizes: Promise<number>[] = [];
    first.on('requestfinished', (request) => {
      if (['script', 'stylesheet'].includes(request.resourceType())) sizes.push(request.sizes().then((s) => s.responseBodySize + s.responseHeadersSize));
    });
    await first.goto(`${origin}/dashboard/sign-in`, { waitUntil: 'networkidle' });
    await first.getByRole('heading', { name: 'Sign in' }).waitFor();
    const files = sizes.length;
    const transferred = (await Promise.all(sizes)).reduce((a, b) => a + b, 0);
    await cdp.send('Network.setCacheDisabled', { cacheDisabled: false });
    log(`first load: ${files} files, ${(transferred / 1024).toFixed(1)} KB`);

    // Sign in through the form (the cookie is the browser's own, HttpOnly).
    await first.goto(`${origin}/dashboard/invitation#token=${token}`);
    await first.getByLabel('Password').fill('bench passphrase long');
    await first.getByRole('button', { name: 'Set password and sign in' }).click();
    await first.getByRole('heading', { name: 'Home', level: 1 }).waitFor();
    await first.close();

    // 2. Navigation to the sales list until its first page of rows is drawn.
    const times: number[] = [];
    let cold = 0;
    for (let i = 0; i < runs + 1; i++) {
      const page = await context.newPage();
      if (i === 0) {
        const c = await context.newCDPSession(page);
        await c.send('Network.enable');
        await c.send('Network.setCacheDisabled', { cacheDisabled: true });
      }
      const t0 = performance.now();
      await page.goto(`${origin}/dashboard/sales`, { waitUntil: 'commit' });
      await page.waitForFunction(() => document.querySelectorAll('table tbody tr').length === 25, undefined, { polling: 'raf', timeout: 30_000 });
      const ms = performance.now() - t0;
      if (i === 0) cold = ms;
      else times.push(ms);
      if (process.env.BENCH_DEBUG) {
        log(JSON.stringify(await page.evaluate(() => performance.getEntries().map((e) => [e.name.replace(location.origin, ''), Math.round(e.startTime), Math.round(e.duration)]))));
      }
      const shown = await page.locator('.pagination-info').textContent();
      if (!shown?.includes('100,000')) throw new Error(`the list did not show 100,000 sessions: ${shown}`);
      await page.close();
    }
    log(`sales list first page: median ${median(times).toFixed(0)} ms of ${runs} (${times.map((t) => t.toFixed(0)).join(', ')}), cold ${cold.toFixed(0)} ms`);
    return { firstLoadKb: transferred / 1024, firstLoadFiles: files, salesListMs: median(times), salesListColdMs: cold, runs };
  } finally {
    await chrome?.close();
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { runs } = parseArgs({ options: { runs: { type: 'string' } } }).values;
  const f = await measureDashboard({ runs: runs ? Number(runs) : 7, log: (line) => console.log(line) });
  console.log(`first load: ${f.firstLoadKb.toFixed(1)} KB of script and style in ${f.firstLoadFiles} files (budget ${FIRST_LOAD_BUDGET_KB} KB): ${f.firstLoadKb <= FIRST_LOAD_BUDGET_KB ? 'within' : 'OVER'}`);
  console.log(`sales list, 100,000 sessions: ${f.salesListMs.toFixed(0)} ms median, warm cache; ${f.salesListColdMs.toFixed(0)} ms cold (budget ${SALES_LIST_BUDGET_MS} ms): ${f.salesListMs <= SALES_LIST_BUDGET_MS ? 'within' : 'OVER'}`);
}
