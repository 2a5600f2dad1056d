/**
 * Renewals per second: N test-mode subscriptions on one test clock, all due at once; the clock is
 * advanced over HTTP and the run lasts until the clock reads `ready`, every renewal's receipt is
 * queued and its `invoice.paid` webhook has reached a receiver on loopback (invoice, test charge,
 * events, receipt, webhook). In the same run, checkout sessions created
 * per second over HTTP against the same service: the goal is renewals/s ≥ 0.5 × sessions/s, and
 * the run of the largest N at most 11 × the run of the smallest (cost grows linearly).
 *
 *   node bin/run-ts.js bench/subscriptionRenewals.ts [--sizes 10000,100000] [--duration 3]
 */
import Database from 'better-sqlite3';
import type { ChildProcess } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { openEventStoreAt } from '../app/compose.ts';
import { toNewEvent } from '../platform/es/handleCommand.ts';
import { subscriptionDecider, subscriptionStream, type SubscriptionCreatedData } from '../modules/subscriptions/domain/subscription.ts';
import { childEnv, load, run, serve, stopAll } from './processes.ts';

const DAY = 86_400;
/** 2027-01-01T00:00:00Z: the clock's start. */
const T0 = 1_798_761_600;

type Demo = { organization: { id: string }; token: string; offer: { slug: string; uuid: string; id: string } };

/** N active monthly subscriptions on `clockId`, written as the billing process writes them, in big appends. */
async function seed(dataDir: string, demo: Demo, clockId: string, n: number): Promise<void> {
  const store = await openEventStoreAt(dataDir);
  const metadata = { correlation_id: 'bench_seed', actor: { type: 'system' as const, name: 'bench' }, organization_id: demo.organization.id, occurred_at: T0 };
  await store.append(
    `test_clock-${clockId}`,
    [toNewEvent({ type: 'TestClockCreated', data: { id: clockId, organization_id: demo.organization.id, name: 'bench', frozen_time: T0, created_at: T0 } }, metadata)],
    'no_stream',
  );
  const CHUNK = 2000;
  for (let start = 0; start < n; start += CHUNK) {
    const appends = [];
    for (let i = start; i < Math.min(n, start + CHUNK); i++) {
      const id = `sub_bench${String(i).padStart(7, '0')}${randomUUID().slice(0, 8)}`;
      const sub: Omit<SubscriptionCreatedData, 'created_at'> = {
        id,
        organization_id: demo.organization.id,
        mode: 'test',
        customer: { email: `buyer${i}@example.com`, name: null, user_id: null },
        offer: { uuid: demo.offer.uuid, id: demo.offer.id, slug: demo.offer.slug, name: 'Bench plan' },
        plan: { product_id: 'bench', plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
        currency: 'EUR',
        lines: [{ name: 'Monthly', amount: 500 }],
        amount: 500,
        session_id: `cs_bench${i}`,
        payment_method: { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2040 },
        billing_cycle_anchor: T0 - 31 * DAY,
        current_period_start: T0 - 31 * DAY,
        current_period_end: T0,
        trial_start: null,
        trial_end: null,
        first_invoice: null,
        test_clock: clockId,
      };
      const events = subscriptionDecider.decide({ type: 'CreateSubscription', subscription: sub, now: T0 - 31 * DAY }, subscriptionDecider.initialState());
      appends.push({ stream: subscriptionStream(id), events: (Array.isArray(events) ? events : [events]).map((e) => toNewEvent(e, metadata)), expected: 'no_stream' as const });
    }
    await store.appendMany(appends);
  }
  await store.close();
}

function count(dataDir: string, type: string): number {
  const db = new Database(join(dataDir, 'commerce.db'), { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT count(*) AS n FROM events WHERE type = ?').get(type) as { n: number }).n;
  } finally {
    db.close();
  }
}

async function waitFor(check: () => Promise<boolean> | boolean, timeoutMs: number): Promise<void> {
  const until = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > until) throw new Error('timed out');
    await new Promise((r) => setTimeout(r, 100));
  }
}

export type RenewalRun = { n: number; seconds: number; renewalsPerSecond: number; sessionsPerSecond: number };

/** One size: a fresh service, its sessions/s, then the clock advance over all N. */
export async function renewalRun(n: number, durationSeconds: number, log: (line: string) => void): Promise<RenewalRun> {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-renewals-'));
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', CHECKOUT_RATE_LIMIT: '100000000', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  const children: ChildProcess[] = [];
  // The seller's webhook receiver: counts the invoice.paid deliveries.
  let paidWebhooks = 0;
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (c: Buffer) => (body += c.toString()));
    request.on('end', () => {
      if (body.includes('"invoice.paid"')) paidWebhooks += 1;
      response.writeHead(200).end();
    });
  });
  await new Promise<void>((done) => receiver.listen(0, '127.0.0.1', done));
  try {
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as Demo;
    const clockId = `clock_bench${randomUUID().slice(0, 12)}`;
    const seedStart = performance.now();
    await seed(dataDir, demo, clockId, n);
    log(`seeded ${n} subscriptions in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
    const ours = await serve(['bin/commerce.js', 'serve'], env);
    children.push(ours.child);
    const auth = { authorization: `Bearer ${demo.token}`, 'content-type': 'application/json' };
    const clockUrl = `${ours.url}/api/test_clocks/${clockId}`;
    // The service's projections catch up with the seeded log first.
    await waitFor(async () => (await fetch(`${ours.url}/readyz`)).status === 200, 1_800_000);
    const endpoint = await fetch(`${ours.url}/api/webhook-endpoints`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`, event_types: ['invoice.paid'] }),
    });
    if (endpoint.status !== 201) throw new Error(`webhook endpoint answered ${endpoint.status}: ${await endpoint.text()}`);
    const body = JSON.stringify({ offer: demo.offer.slug });
    const sessions = await load(
      { url: `${ours.url}/api/checkout/sessions`, method: 'POST', headers: { 'content-type': 'application/json' }, body, connections: 50, duration: durationSeconds },
      ours.child.pid,
    );
    const started = performance.now();
    const advanced = await fetch(`${clockUrl}/advance`, { method: 'POST', headers: auth, body: JSON.stringify({ frozen_time: T0 + DAY }) });
    if (advanced.status !== 200) throw new Error(`advance answered ${advanced.status}: ${await advanced.text()}`);
    await waitFor(async () => ((await (await fetch(clockUrl, { headers: auth })).json()) as { status: string }).status === 'ready', 3_600_000);
    const ready = (performance.now() - started) / 1000;
    await waitFor(() => count(dataDir, 'ReceiptQueued') >= n && paidWebhooks >= n, 3_600_000);
    const seconds = (performance.now() - started) / 1000;
    const paid = count(dataDir, 'SubscriptionInvoicePaid');
    if (paid !== n) throw new Error(`${paid} of ${n} subscriptions renewed`);
    log(`${n}: clock ready after ${ready.toFixed(1)} s, every receipt queued and invoice.paid received after ${seconds.toFixed(1)} s`);
    return { n, seconds, renewalsPerSecond: n / seconds, sessionsPerSecond: sessions.rps };
  } finally {
    await stopAll(children);
    receiver.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

export async function runRenewalsBench(sizes: number[], durationSeconds: number, log: (line: string) => void) {
  const runs: RenewalRun[] = [];
  for (const n of sizes) runs.push(await renewalRun(n, durationSeconds, log));
  for (const r of runs) {
    log(
      `${r.n}: ${r.renewalsPerSecond.toFixed(0)} renewals/s, ${r.sessionsPerSecond.toFixed(0)} sessions/s, ratio ${(r.renewalsPerSecond / r.sessionsPerSecond).toFixed(2)} (goal ≥ 0.5)`,
    );
  }
  if (runs.length > 1) {
    const first = runs[0]!;
    const last = runs[runs.length - 1]!;
    log(`${last.n} took ${(last.seconds / first.seconds).toFixed(2)} × the run of ${first.n} (goal ≤ ${((last.n / first.n) * 1.1).toFixed(1)})`);
  }
  return runs;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { sizes: { type: 'string', default: '10000,100000' }, duration: { type: 'string', default: '3' } } });
  await runRenewalsBench(values.sizes.split(',').map(Number), Number(values.duration), (line) => console.log(line));
}
