/**
 * The statement of a long-lived subscription: 36 renewals, 3 plan changes and 5 failed attempts
 * (each retried and paid), written as a billing run writes them (the deciders' commands on the
 * subscription's and its invoices' streams). Measures `GET /api/subscriptions/{id}/statement`
 * over real HTTP, one request at a time (p50, p99), against a raw read of the same streams: a bare
 * fastify route on the same store answering the subscription's stream and its invoices' as JSON,
 * read as the route reads them. Goals: p99 ≤ 20 ms; statements per second ≥ 0.5 × raw reads.
 *
 *   node bin/run-ts.js bench/subscriptionStatement.ts [--rounds 400]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Fastify from 'fastify';
import { compose } from '../app/compose.ts';
import { buildApp } from '../app/httpApp.ts';
import { invoiceDecider, invoiceStream } from '../modules/checkout/domain/invoice.ts';
import { createApiKey, createOrganization, createUser } from '../modules/identity/identityCommands.ts';
import { DEFAULT_DUNNING, nextBoundary, subscriptionDecider, subscriptionStream, type PlanTerms, type SubscriptionCommand } from '../modules/subscriptions/domain/subscription.ts';
import { fold } from '../platform/domain/decider.ts';
import { handleCommand } from '../platform/es/handleCommand.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { benchFlags, median } from './processes.ts';

const ORG = 'org_bench_statement';
const SUB = 'sub_bench_statement';
const CARD = { brand: 'visa', last4: '4242' };
const START = Date.UTC(2023, 0, 31) / 1000;
const plan = (name: string): PlanTerms => ({ product_id: 'prod', plan_id: name, plan_name: name, renew_interval: 'P1M', invoice_interval: 'P1M' });

const percentile = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * p))]!;

export type Row = { figure: string; value: number; unit: string; ratio: string };

export async function runStatementBench(opts: { rounds?: number; log?: (line: string) => void } = {}): Promise<Row[]> {
  const rounds = opts.rounds ?? 400;
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-statement-'));
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, logger: { error: () => undefined, info: () => undefined } });
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const closers: Array<() => Promise<unknown>> = [];
  try {
    const ctx = () => ({ store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: ORG, occurred_at: Math.floor(Date.now() / 1000) } });
    await createOrganization(ctx(), { id: ORG, name: 'Bench', timezone: 'UTC' });
    const user = await createUser(ctx(), { email: 'bench@example.com', organizationId: ORG });
    const { token } = await createApiKey(ctx(), { userId: user.id, organizationId: ORG });

    const sub = (command: SubscriptionCommand) => handleCommand(ctx(), subscriptionStream(SUB), subscriptionDecider, command);
    const invoice = (id: string, command: Parameters<typeof invoiceDecider.decide>[0]) => handleCommand(ctx(), invoiceStream(id), invoiceDecider, command);
    const invoiceIds: string[] = ['in_bench_0'];
    await invoice('in_bench_0', { type: 'CreateInvoice', invoice: { id: 'in_bench_0', number: 1, organization_id: ORG, session_id: 'cs_bench', lines: [{ name: 'basic', amount: 1000 }], currency: 'EUR', customer: null }, now: START });
    await invoice('in_bench_0', { type: 'PayInvoice', attemptId: 'a0', card: CARD, customer: null, now: START });
    await sub({
      type: 'CreateSubscription',
      subscription: {
        id: SUB, organization_id: ORG, mode: 'test', customer: { email: 'b@example.com', name: null, user_id: null }, offer: { uuid: 'u', id: 'o', slug: 's', name: 'n' },
        plan: plan('basic'), currency: 'EUR', lines: [{ name: 'basic', amount: 1000 }], amount: 1000, session_id: 'cs_bench', payment_method: null,
        billing_cycle_anchor: START, current_period_start: START, current_period_end: nextBoundary(START, plan('basic'), START), trial_start: null, trial_end: null,
        first_invoice: { id: 'in_bench_0', number: 1, amount: 1000, paid: true }, test_clock: null,
      },
      now: START,
    });
    const current = async () => {
      const state = fold(subscriptionDecider, (await services.store.readStream(subscriptionStream(SUB))) as never);
      if (state.status === 'none') throw new Error('no subscription');
      return state;
    };
    const prices = [1000, 3000, 2000, 5000];
    for (let n = 1; n <= 36; n++) {
      if (n % 12 === 6) {
        const k = n / 6;
        const at = (await current()).current_period_start + 10 * 86_400;
        const name = `plan${k}`;
        await sub({ type: 'ChangePlan', plan: plan(name), lines: [{ name, amount: prices[k % 4]! }], behavior: 'create_prorations', now: at });
      }
      const at = (await current()).current_period_end;
      const id = `in_bench_${n}`;
      invoiceIds.push(id);
      const made = await sub({ type: 'CreateRenewalInvoice', invoiceId: id, number: n + 1, now: at });
      const created = made.events[0];
      if (created?.type !== 'SubscriptionInvoiceCreated') throw new Error(`renewal ${n} was not invoiced`);
      const d = created.data;
      await invoice(id, {
        type: 'CreateInvoice',
        invoice: { id, number: n + 1, organization_id: ORG, session_id: null, lines: d.lines, currency: 'EUR', customer: null, subscription_id: SUB, billing_reason: d.billing_reason, period: { start: d.period_start, end: d.period_end }, amount_due: d.amount_due },
        now: at,
      });
      // Five renewals are declined once, then paid on the first retry.
      const fails = n % 7 === 3 ? 1 : 0;
      let attempt = 0;
      for (let f = 0; f <= fails; f++) {
        attempt += 1;
        const when = at + f * 86_400;
        await sub({ type: 'AttemptPayment', invoiceId: id, now: when });
        if (f < fails) {
          await sub({ type: 'RecordPaymentFailed', invoiceId: id, attempt, code: 'card_declined', declineCode: 'insufficient_funds', message: 'no', settings: DEFAULT_DUNNING, now: when });
          await invoice(id, { type: 'RecordPaymentFailure', attemptId: `${id}-${attempt}`, attempt, code: 'card_declined', declineCode: 'insufficient_funds', message: 'no', nextPaymentAttempt: when + 86_400, now: when });
        } else {
          await invoice(id, { type: 'PayInvoice', attemptId: `${id}-${attempt}`, card: CARD, customer: null, now: when });
          await sub({ type: 'RecordPaymentSucceeded', invoiceId: id, attempt, chargeId: null, card: CARD, now: when });
        }
      }
    }
    const asOf = START + 4 * 365 * 86_400;
    const path = `${url}/api/subscriptions/${SUB}/statement?as_of=${asOf}`;
    const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
    const first = await fetch(path, { headers });
    const body = (await first.json()) as { entries: unknown[] };
    if (first.status !== 200) throw new Error(`statement: ${first.status}`);
    log(`statement of ${invoiceIds.length} invoices, ${body.entries.length} entries`);

    const timeStatement = async () => {
      const t = performance.now();
      const r = await fetch(path, { headers });
      await r.arrayBuffer();
      return performance.now() - t;
    };
    // The reference: a bare fastify route on the same store answering the same streams as JSON.
    const bare = Fastify();
    bare.get('/raw', async () => {
      const events = await services.store.readStream(subscriptionStream(SUB));
      const invoices = await Promise.all(invoiceIds.map((id) => services.store.readStream(invoiceStream(id))));
      return { events, invoices };
    });
    await bare.listen({ port: 0, host: '127.0.0.1' });
    const bareAddress = bare.server.address();
    const rawUrl = `http://127.0.0.1:${typeof bareAddress === 'object' && bareAddress ? bareAddress.port : 0}/raw`;
    closers.push(() => bare.close());
    const timeRaw = async () => {
      const t = performance.now();
      const r = await fetch(rawUrl, { headers: { accept: 'application/json' } });
      await r.arrayBuffer();
      return performance.now() - t;
    };
    for (let i = 0; i < 50; i++) {
      await timeStatement();
      await timeRaw();
    }
    const ours: number[] = [];
    const raw: number[] = [];
    for (let i = 0; i < rounds; i++) {
      ours.push(await timeStatement());
      raw.push(await timeRaw());
    }
    const p99 = percentile(ours, 0.99);
    const ratio = median(raw) / median(ours);
    log(`statement p50 ${median(ours).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms; raw read p50 ${median(raw).toFixed(2)} ms, p99 ${percentile(raw, 0.99).toFixed(2)} ms`);
    return [
      { figure: 'statement (36 renewals, 3 plan changes, 5 failed attempts) p99 over HTTP', value: p99, unit: 'ms', ratio: 'goal ≤ 20 ms' },
      { figure: 'statements per second vs raw reads of the same streams', value: 1000 / median(ours), unit: 'statements/s', ratio: ratio.toFixed(2) },
    ];
  } finally {
    for (const close of closers) await close();
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const rounds = Number(process.argv[process.argv.indexOf('--rounds') + 1]) || benchFlags().rounds;
  const rows = await runStatementBench({ ...(rounds ? { rounds } : {}), log: (line) => console.log(line) });
  for (const r of rows) console.log(`${r.figure}: ${r.value.toFixed(2)} ${r.unit}, ${r.ratio}`);
}
