/**
 * Event-webhook delivery, measured in one process on a real SQLite data directory with the
 * service's own projections and background jobs (the fan-out subscriber and the dispatcher):
 *
 * (a) Throughput: N sales are recorded while no webhook job runs, then the job starts and the
 *     time until a loopback receiver has answered 2xx to every `checkout.session.completed`
 *     (fan-out, the delivery recorded, the dispatcher's pass, signing, the POST, the attempt
 *     recorded) gives deliveries per second. The reference, in the same run: a bare undici POST
 *     loop with the concurrency the job gives one endpoint (16) and a body of the same size, to
 *     the same receiver. Goal: ≥ 0.2 of the reference.
 * (b) Lag: sales at a steady rate (200 per second for 30 s by default) while the job runs; for
 *     each, the time from the sale's commit (paySession returned: CheckoutSessionCompleted is
 *     durably appended) to the receiver's 2xx for its webhook. p50, p99 and max. Goal: p99 ≤ 1 s.
 *
 * Sales are made through the command layer (createSession, startSession, paySession with the test
 * card: the same events the public checkout routes append), not over HTTP: 200 sales a second is
 * 600 public requests a second, which the 2 shared cores of the CI machine cannot sustain beside
 * the service's own work.
 *
 * (a) is measured in rounds (5 by default), each on fresh sales, and the median round's ratio is the
 * figure: the bare loop's speed swings by half on a shared machine.
 *
 *   node bin/run-ts.js bench/webhookDelivery.ts [--sales 2000] [--rounds 5] [--rate 200] [--seconds 30] [--phases] [--hanging-every N]
 *
 * `--phases` (throughput only): each round's two halves one after the other, with their CPU and
 * wall time per delivery: the fan-out alone (deliveries recorded and projected, nothing sent),
 * then the dispatcher alone (sent, attempts recorded and projected).
 *
 * `--hanging-every N` (lag only): one sale in N goes to a second seller whose endpoint is a path
 * on the same receiver (same host and port) that never answers; the lags are the first seller's.
 * Goal: p99 ≤ 950 ms (50 ms of headroom under the 1 s goal).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Session } from 'node:inspector/promises';
import { pathToFileURL } from 'node:url';
import { Pool } from 'undici';
import { loadConfig } from '../platform/runtime/config.ts';
import { compose } from '../app/compose.ts';
import type { Services } from '../platform/runtime/services.ts';
import { createSession, paySession } from '../modules/checkout/sessionCommands.ts';
import { publishOffer, upsertOffer } from '../modules/checkout/offerCommands.ts';
import type { CommandContext } from '../platform/es/handleCommand.ts';
import { createOrganization } from '../modules/identity/identityCommands.ts';
import { paymentProviderFor } from '../modules/payments/paymentProviders.ts';
import { secretBox } from '../platform/lib/secretBox.ts';
import { createWebhookEndpoint } from '../modules/webhooks/webhookEndpointCommands.ts';
import { findOfferByRef } from '../modules/checkout/checkoutQueries.ts';
import { followFanOut, webhookJob } from '../modules/webhooks/jobs/webhookJob.ts';
import { WEBHOOK_DELIVERIES } from '../modules/webhooks/webhookProjection.ts';
import { median } from './processes.ts';

/** The job's calls at once to one endpoint (PER_ENDPOINT in modules/webhooks/jobs/webhookJob.ts): the bench has one. */
const CONCURRENCY = 16;
const REFERENCE_POSTS = 10_000;
/** The path of the receiver that never answers (`--hanging-every`). */
const HANGING_PATH = '/hangs';
const GOOD_CARD = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
const quiet = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

type Receiver = { url: string; answered: Map<string, number>; count(): number; close(): Promise<void> };

/** A loopback HTTP server with `handle` for its requests; `close` ends its connections too. */
async function listen(handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer(handle);
  server.keepAliveTimeout = 10_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => {
      server.closeAllConnections();
      server.close(() => r());
    }),
  };
}

/**
 * A loopback receiver that answers 200 at once and notes when it answered each session's webhook;
 * a request to HANGING_PATH it takes and never answers.
 */
async function startReceiver(): Promise<Receiver> {
  const answered = new Map<string, number>();
  let count = 0;
  const server = await listen((req, res) => {
    if (req.url === HANGING_PATH) return;
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
      count++;
      const body = Buffer.concat(chunks).toString('utf8');
      // The reference's bodies are not webhooks: only count them.
      const id = /"object":\{"id":"(cs_[A-Za-z0-9_]+)"/.exec(body)?.[1];
      if (id && !answered.has(id)) answered.set(id, performance.now());
    });
  });
  return { ...server, answered, count: () => count };
}

/** An organization selling one published offer, with an endpoint for its `checkout.session.completed`. */
type Seller = { ctx: () => CommandContext; offer: NonNullable<Awaited<ReturnType<typeof findOfferByRef>>> };
type Shop = Seller & { services: Services & { close(): Promise<void> }; dataDir: string };

async function openShop(receiverUrl: string): Promise<Shop> {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-hooks-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent', WEBHOOK_ALLOW_HOSTS: '127.0.0.1' });
  // What `commerce serve` runs on its subscriber thread (app/server.ts), here on one thread: the projections with lazy checkpoints.
  const services = await compose(config, { runProjections: true, lazyCheckpoints: true, logger: quiet });
  const seller = await openSeller(services, receiverUrl, 'Bench shop', 'bench-pro');
  return { services, dataDir, ...seller };
}

async function openSeller(services: Services, receiverUrl: string, name: string, slug: string, path = '/hooks'): Promise<Seller> {
  const system = (organizationId: string | null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'bench', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(services.clock() / 1000) },
  });
  const org = await createOrganization(system(null), { name, timezone: 'UTC' });
  const content = {
    name: 'Pro plan',
    theme: { primary_color: '#3355ff' },
    pages: [{ id: 'pay', type: 'checkout', title: 'Checkout', blocks: [] }],
    plan: { product_id: 'bench-product', plan_id: 'plan_monthly', plan_name: 'monthly', charges: [{ id: 'c1', name: 'Pro monthly', amount: 1900 }] },
    currency: 'EUR',
  };
  const upserted = await upsertOffer(system(org.id), { organizationId: org.id, slug, ...content } as never);
  await publishOffer(system(org.id), upserted.uuid);
  await createWebhookEndpoint(system(org.id), secretBox(services.secrets.jwt), { organizationId: org.id, url: `${receiverUrl}${path}`, eventTypes: ['checkout.session.completed'], enabled: true });
  const head = await services.store.headPosition();
  if (head !== null) await services.projections?.waitFor(head, 30_000);
  const offer = await findOfferByRef(services.readStore, slug);
  if (!offer) throw new Error('bench offer not found');
  return { ctx: () => system(org.id), offer };
}

let counter = 0;
/** One sale through the command layer; resolves when CheckoutSessionCompleted is durably appended. */
async function sale(shop: Shop, seller: Seller = shop): Promise<string> {
  const id = `cs_bench${Date.now().toString(36)}${(counter++).toString(36)}`;
  const ctx = seller.ctx();
  await createSession(ctx, { id, offer: seller.offer, customer: null, metadata: {}, mode: 'test', expiresIn: 86_400, promo: null });
  const paid = await paySession(ctx, id, { card: GOOD_CARD, customer: { email: `buyer${counter}@example.com`, name: null } as never }, paymentProviderFor, shop.services.clock());
  if ((paid as { status?: string }).status === 'declined') throw new Error('bench sale declined');
  return id;
}

async function until(check: () => boolean, timeoutMs: number, what: string): Promise<void> {
  const end = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** The reference: `total` POSTs of `body` over one keep-alive undici Pool, `CONCURRENCY` at a time. */
async function undiciLoop(url: string, body: string, total: number): Promise<number> {
  const origin = new URL(url);
  const pool = new Pool(origin.origin, { connections: CONCURRENCY });
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < total) {
      next++;
      const res = await pool.request({ path: '/hooks', method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await res.body.text();
      if (res.statusCode !== 200) throw new Error(`reference got ${res.statusCode}`);
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  const seconds = (performance.now() - started) / 1000;
  await pool.close();
  return total / seconds;
}

/** `count` sales through the command layer, 20 at a time; resolves once the projections have applied them. */
async function recordSales(shop: Shop, count: number): Promise<void> {
  for (let i = 0; i < count; i += 20) await Promise.all(Array.from({ length: Math.min(20, count - i) }, () => sale(shop)));
  const head = await shop.services.store.headPosition();
  if (head !== null) await shop.services.projections?.waitFor(head, 120_000);
}

/** CPU (every thread) and wall time per delivery of one half of the work. */
type Phase = { cpuMs: number; wallUs: number };

/**
 * The fan-out alone, as the job runs it (same checkpoint, same handler) but with no dispatcher:
 * until the webhooks read model holds `pending` pending deliveries.
 */
async function fanOutPhase(shop: Shop, sales: number, pending: number): Promise<Phase> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const following = await followFanOut(shop.services, quiet, () => undefined);
  while ((await shop.services.readStore.count(WEBHOOK_DELIVERIES, { status: 'pending' })) < pending) await new Promise((r) => setTimeout(r, 2));
  const phase = { cpuMs: cpuMs(cpu) / sales, wallUs: ((performance.now() - started) * 1000) / sales };
  await following.stop();
  return phase;
}

/** One round's figures: ours and the bare loop, measured one after the other. */
type Round = {
  phases?: { fanOut: Phase; dispatch: Phase };
  ours: number;
  reference: number;
  oursCpuMs: number;
  mainThreadCpuMs: number | null;
  otherThreadsCpuMs: number | null;
  referenceCpuMs: number;
};

/**
 * One round: `sales` sales recorded while no webhook job runs, then (a) the job started and
 * timed until the receiver has answered every one of their webhooks, (b) the bare loop.
 * `profile` names the files of CPU profiles or the heap sampling.
 */
async function throughputRound(shop: Shop, receiver: Receiver, body: string, sales: number, profile: { cpu?: string; heap?: string }, phases = false): Promise<Round> {
  const before = receiver.answered.size;
  await recordSales(shop, sales);
  // Split: the fan-out first, alone; the job started below then finds its checkpoint at the head and only sends.
  const fanOut = phases ? await fanOutPhase(shop, sales, sales) : null;
  const profiler = profile.cpu ? await startProfile() : profile.heap ? await startHeapSampling() : null;
  const threadsBefore = threadCpuMs();
  const started = performance.now();
  const cpu = process.cpuUsage();
  const job = await webhookJob({ pollMs: 1000 }).start(shop.services, quiet);
  await until(() => receiver.answered.size >= before + sales, 600_000, 'every webhook');
  const ours = sales / ((performance.now() - started) / 1000);
  const oursCpuMs = cpuMs(cpu) / sales;
  const split = fanOut ? { fanOut, dispatch: { cpuMs: oursCpuMs, wallUs: 1e6 / ours } } : undefined;
  const threads = threadCpuMs();
  if (profiler) await profiler.stop((profile.cpu ?? profile.heap)!);
  await job.stop();
  const referenceCpu = process.cpuUsage();
  const referenceProfiler = profile.cpu ? await startProfile() : null;
  // At least REFERENCE_POSTS: the bare loop is fast enough that 2,000 POSTs last a tenth of a
  // second, which one hiccup of the machine moves by half.
  const reference = await undiciLoop(receiver.url, body, Math.max(sales, REFERENCE_POSTS));
  if (referenceProfiler) await referenceProfiler.stop(profile.cpu!.replace(/(\.cpuprofile)?$/, '.reference.cpuprofile'));
  const referenceCpuMs = cpuMs(referenceCpu) / Math.max(sales, REFERENCE_POSTS);
  return {
    ...(split ? { phases: split } : {}),
    ours,
    reference,
    oursCpuMs,
    mainThreadCpuMs: threadsBefore && threads ? (threads.main - threadsBefore.main) / sales : null,
    otherThreadsCpuMs: threadsBefore && threads ? (threads.others - threadsBefore.others) / sales : null,
    referenceCpuMs,
  };
}

/**
 * `rounds` rounds (5 by default), each ours then the bare loop on fresh sales: on
 * a shared machine the bare loop's speed swings by half from one moment to the next, so each
 * round's ratio compares neighbours in time, and the median round is the figure.
 */
export async function runDeliveryThroughput(opts: { sales?: number; warmup?: number; rounds?: number; phases?: boolean; log?: (s: string) => void } = {}) {
  const sales = opts.sales ?? 2000;
  const warmup = opts.warmup ?? 1000;
  const roundCount = opts.rounds ?? 5;
  const log = opts.log ?? (() => undefined);
  const receiver = await startReceiver();
  const shop = await openShop(receiver.url);
  try {
    // Our code warmed up (JIT-compiled) as the reference's is below, as in a service that has been
    // running: measured cold, a run of a few thousand deliveries is mostly compilation.
    if (warmup > 0) {
      log(`warming up: ${warmup} sales delivered`);
      await recordSales(shop, warmup);
      const warming = await webhookJob({ pollMs: 1000 }).start(shop.services, quiet);
      await until(() => receiver.answered.size >= warmup, 600_000, 'the warm-up webhooks');
      await warming.stop();
    }
    // The HTTP client and server code warmed up (JIT-compiled) for both sides alike: measured
    // cold, our run would pay undici's warm-up and hand the reference, run after it, a warm one.
    // The same size of body as a webhook of this run (a webhook is about 1.3 KB).
    const body = JSON.stringify({ pad: 'x'.repeat(1200) });
    await undiciLoop(receiver.url, body, 2000);
    const rounds: Round[] = [];
    for (let i = 0; i < roundCount; i++) {
      log(`round ${i + 1} of ${roundCount}: ${sales} sales recorded with no webhook job running, then delivered`);
      // BENCH_PROFILE=file.cpuprofile (or BENCH_HEAP=file.heapprofile): the last (warmest) round's delivery phase (and its reference, beside it).
      const profile = i === roundCount - 1 ? { cpu: process.env.BENCH_PROFILE, heap: process.env.BENCH_HEAP } : {};
      const round = await throughputRound(shop, receiver, body, sales, profile, opts.phases);
      rounds.push(round);
      const p = round.phases;
      if (p) log(`  fan-out ${p.fanOut.cpuMs.toFixed(3)} ms CPU, ${p.fanOut.wallUs.toFixed(0)} µs wall; dispatch ${p.dispatch.cpuMs.toFixed(3)} ms CPU, ${p.dispatch.wallUs.toFixed(0)} µs wall (per delivery)`);
      else log(`  ours ${round.ours.toFixed(0)}/s, bare loop ${round.reference.toFixed(0)}/s, ratio ${(round.ours / round.reference).toFixed(2)}`);
    }
    const of = (pick: (r: Round) => number | null) => {
      const values = rounds.map(pick);
      return values.every((v): v is number => v !== null) ? median(values) : null;
    };
    return {
      name: `webhooks delivered per second (${sales} sales, concurrency ${CONCURRENCY}, median of ${roundCount} rounds)`,
      ours: of((r) => r.ours)!,
      reference: of((r) => r.reference)!,
      ratio: of((r) => r.ours / r.reference)!,
      ratios: rounds.map((r) => r.ours / r.reference),
      unit: 'deliveries/s',
      oursCpuMs: of((r) => r.oursCpuMs)!,
      mainThreadCpuMs: of((r) => r.mainThreadCpuMs),
      otherThreadsCpuMs: of((r) => r.otherThreadsCpuMs),
      referenceCpuMs: of((r) => r.referenceCpuMs)!,
      phases: opts.phases
        ? {
            fanOut: { cpuMs: of((r) => r.phases!.fanOut.cpuMs)!, wallUs: of((r) => r.phases!.fanOut.wallUs)! },
            dispatch: { cpuMs: of((r) => r.phases!.dispatch.cpuMs)!, wallUs: of((r) => r.phases!.dispatch.wallUs)! },
          }
        : null,
    };
  } finally {
    await shop.services.close();
    await receiver.close();
    rmSync(shop.dataDir, { recursive: true, force: true });
  }
}

/**
 * CPU time of the main thread and of the process's other threads (V8's garbage-collector helpers,
 * libuv's pool) in ms, from /proc (Linux; null elsewhere): what the work makes the other core do.
 */
function threadCpuMs(): { main: number; others: number } | null {
  try {
    let main = 0;
    let others = 0;
    for (const tid of readdirSync('/proc/self/task')) {
      const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime and stime, in clock ticks (100 per second on Linux).
      const ms = (Number(fields[11]) + Number(fields[12])) * 10;
      if (Number(tid) === process.pid) main += ms;
      else others += ms;
    }
    return { main, others };
  } catch {
    return null;
  }
}

/** CPU time (user and system, every thread of the process) since `from`, in ms: what load on the machine disturbs least. */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const { user, system } = process.cpuUsage(from);
  return (user + system) / 1000;
};

/** An inspector session that starts recording now and writes what `stop` returns to a file. */
async function inspectorRecording(start: (session: Session) => Promise<unknown>, stop: (session: Session) => Promise<object>) {
  const { Session } = await import('node:inspector/promises');
  const { writeFileSync } = await import('node:fs');
  const session = new Session();
  session.connect();
  await start(session);
  return {
    async stop(file: string) {
      writeFileSync(file, JSON.stringify(await stop(session)));
      session.disconnect();
    },
  };
}

/** A CPU profile, sampled every 100 µs (BENCH_PROFILE=file.cpuprofile). */
const startProfile = () =>
  inspectorRecording(
    async (session) => {
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 100 });
      await session.post('Profiler.start');
    },
    async (session) => (await session.post('Profiler.stop')).profile,
  );

/** Every allocation of the delivery phase, sampled, including what the garbage collector took back (BENCH_HEAP=file.heapprofile). */
const startHeapSampling = () =>
  inspectorRecording(
    async (session) => {
      await session.post('HeapProfiler.enable');
      await session.post('HeapProfiler.startSampling', { samplingInterval: 4096, includeObjectsCollectedByMajorGC: true, includeObjectsCollectedByMinorGC: true });
    },
    async (session) => (await session.post('HeapProfiler.stopSampling')).profile,
  );

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;

/**
 * `hangingEvery`: every so many sales go to a second seller whose endpoint is HANGING_PATH on the
 * same receiver, which takes each request and never answers (each call held until
 * WEBHOOK_TIMEOUT_MS, 15 s); the lags are the first seller's.
 */
export async function runDeliveryLag(opts: { rate?: number; seconds?: number; hangingEvery?: number; log?: (s: string) => void } = {}) {
  const rate = opts.rate ?? 200;
  const seconds = opts.seconds ?? 30;
  const hangingEvery = opts.hangingEvery ?? 0;
  const log = opts.log ?? (() => undefined);
  const receiver = await startReceiver();
  const shop = await openShop(receiver.url);
  const stalled = hangingEvery > 0 ? await openSeller(shop.services, receiver.url, 'Bench shop that hangs', 'bench-hangs', HANGING_PATH) : null;
  const job = await webhookJob({ pollMs: 1000 }).start(shop.services, quiet);
  try {
    const committed = new Map<string, number>();
    const inFlight = new Set<Promise<void>>();
    const total = rate * seconds;
    const started = performance.now();
    let behind = 0;
    log(`${rate} sales per second for ${seconds} s${stalled ? `, one in ${hangingEvery} to a seller whose endpoint (on the same origin) hangs` : ''}`);
    for (let i = 0; i < total; i++) {
      // Open loop: each sale starts at its scheduled time, whether or not earlier ones finished.
      const due = started + (i * 1000) / rate;
      const wait = due - performance.now();
      if (wait > 1) await new Promise((r) => setTimeout(r, wait));
      else if (wait < -100) behind++;
      const p = stalled && i % hangingEvery === hangingEvery - 1 ? sale(shop, stalled).then(() => undefined) : sale(shop).then((id) => void committed.set(id, performance.now()));
      inFlight.add(p);
      void p.finally(() => inFlight.delete(p));
    }
    await Promise.all(inFlight);
    const salesSeconds = (performance.now() - started) / 1000;
    await until(() => receiver.answered.size >= committed.size, 300_000, 'every webhook');
    const lags = [...committed].map(([id, at]) => receiver.answered.get(id)! - at).sort((a, b) => a - b);
    return {
      achievedRate: total / salesSeconds,
      behind,
      p50: percentile(lags, 50),
      p99: percentile(lags, 99),
      max: lags[lags.length - 1]!,
      sales: total,
      measured: committed.size,
    };
  } finally {
    await job.stop();
    await shop.services.close();
    await receiver.close();
    rmSync(shop.dataDir, { recursive: true, force: true });
  }
}

/** For bench/run.ts: both figures, with short defaults unless BENCH_WEBHOOK_SECONDS is set. */
export async function runWebhookDeliveryBench() {
  const throughput = await runDeliveryThroughput({ sales: Number(process.env.BENCH_WEBHOOK_SALES ?? 2000) });
  const lag = await runDeliveryLag({ rate: Number(process.env.BENCH_WEBHOOK_RATE ?? 200), seconds: Number(process.env.BENCH_WEBHOOK_SECONDS ?? 30) });
  return [
    throughput,
    { figure: `delivery lag p50 at ${lag.achievedRate.toFixed(0)} sales/s (${lag.sales} sales)`, value: lag.p50, unit: 'ms' },
    { figure: `delivery lag p99 at ${lag.achievedRate.toFixed(0)} sales/s (${lag.sales} sales)`, value: lag.p99, unit: 'ms', ratio: lag.p99 <= 1000 ? 'goal ≤ 1000 met' : 'goal ≤ 1000 missed' },
  ];
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const arg = (name: string, fallback: number) => {
    const i = process.argv.indexOf(`--${name}`);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const log = (s: string) => process.stderr.write(`${s}\n`);
  const only = process.argv.includes('--lag-only') ? 'lag' : process.argv.includes('--throughput-only') ? 'throughput' : 'both';
  if (only !== 'lag') {
    const t = await runDeliveryThroughput({ sales: arg('sales', 2000), warmup: arg('warmup', 1000), rounds: arg('rounds', 5), phases: process.argv.includes('--phases'), log });
    if (t.phases) {
      const { fanOut, dispatch } = t.phases;
      console.log(`medians of ${t.ratios.length} rounds, per delivery, each half alone:`);
      console.log(`  fan-out (recorded, projected): ${fanOut.cpuMs.toFixed(3)} ms CPU, ${fanOut.wallUs.toFixed(0)} µs wall`);
      console.log(`  dispatch (sent, attempt recorded, projected): ${dispatch.cpuMs.toFixed(3)} ms CPU, ${dispatch.wallUs.toFixed(0)} µs wall`);
      console.log(`  bare undici loop: ${t.referenceCpuMs.toFixed(3)} ms CPU, ${(1e6 / t.reference).toFixed(0)} µs wall per POST`);
    } else {
      console.log(`medians of ${t.ratios.length} rounds (ratios ${t.ratios.map((r) => r.toFixed(2)).join(', ')}):`);
      console.log(`throughput: ours ${t.ours.toFixed(0)} deliveries/s, undici loop ${t.reference.toFixed(0)} req/s, ratio ${t.ratio.toFixed(2)} (goal ≥ 0.2)`);
      console.log(`CPU: ${t.oursCpuMs.toFixed(3)} ms per delivery, ${t.referenceCpuMs.toFixed(3)} ms per reference POST (receiver included in both)`);
      if (t.mainThreadCpuMs !== null && t.otherThreadsCpuMs !== null) {
        console.log(`  of ours: main thread ${t.mainThreadCpuMs.toFixed(3)} ms, other threads (GC helpers, libuv) ${t.otherThreadsCpuMs.toFixed(3)} ms per delivery`);
      }
    }
  }
  if (only !== 'throughput') {
    const hangingEvery = arg('hanging-every', 0);
    const l = await runDeliveryLag({ rate: arg('rate', 200), seconds: arg('seconds', 30), hangingEvery, log });
    const of = hangingEvery > 0 ? ` (lags of the ${l.measured} to the endpoint that answers)` : '';
    const goal = hangingEvery > 0 ? 950 : 1000;
    console.log(
      `lag: ${l.sales} sales at ${l.achievedRate.toFixed(0)}/s (${l.behind} started >100 ms late)${of}: p50 ${l.p50.toFixed(0)} ms, p99 ${l.p99.toFixed(0)} ms, max ${l.max.toFixed(0)} ms (goal p99 ≤ ${goal} ms)`,
    );
  }
}
