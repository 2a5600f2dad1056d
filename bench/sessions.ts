/**
 * Checkout sessions created per second over real HTTP (POST /api/checkout/sessions: offer lookup,
 * CheckoutSessionCreated appended durably with synchronous=FULL, read-your-writes wait for the
 * projection) against a raw better-sqlite3 loop that appends the same event to the same table
 * shape, synchronous=FULL, one transaction per session. Same run; prints both and the ratio.
 *
 *   node bin/run-ts.js bench/sessions.ts [--duration 3] [--connections 50]
 */
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startInProcessService } from './inProcessService.ts';
import { publishOffer, upsertOffer } from '../commands/checkout/offerCommands.ts';
import { createOrganization } from '../commands/identity/identityCommands.ts';

export type BenchResult = { name: string; ours: number; reference: number; ratio: number; unit: string };

const BODY = JSON.stringify({ offer: 'bench-offer', metadata: { source: 'landing', campaign: 'spring' } });

/** The event one session creation appends, with the metadata the API records. */
function sessionEvent(i: number) {
  return {
    id: randomUUID(),
    stream: `checkout_session-cs_bench${i}`,
    type: 'CheckoutSessionCreated',
    data: {
      id: `cs_bench${i}`,
      organization_id: 'org_bench',
      offer: { uuid: randomUUID(), id: 'xY3kQ9', slug: 'bench-offer', name: 'Bench offer' },
      plan: { product_id: 'xY3kQ9', plan_id: 'aB12cD', plan_name: 'monthly' },
      lines: [{ name: 'Monthly', amount: 1900 }],
      total: 1900,
      currency: 'EUR',
      mode: 'test',
      customer: null,
      metadata: { source: 'landing', campaign: 'spring' },
      promo: null,
      promo_tier: null,
      expires_at: 1_800_000_000,
      created_at: 1_799_913_600,
    },
    metadata: { correlation_id: 'req_0123456789abcdefghij', actor: { type: 'public', ip: '127.0.0.1' }, organization_id: 'org_bench', occurred_at: 1_799_913_600 },
  };
}

/** The reference: the same append as a plain loop on better-sqlite3, each session its own durable transaction. */
function referenceLoop(file: string, durationMs: number): number {
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = FULL');
  db.exec(`CREATE TABLE IF NOT EXISTS events (
    position INTEGER PRIMARY KEY AUTOINCREMENT, id TEXT NOT NULL UNIQUE, stream TEXT NOT NULL,
    revision INTEGER NOT NULL, type TEXT NOT NULL, data TEXT NOT NULL, metadata TEXT NOT NULL,
    UNIQUE (stream, revision))`);
  const last = db.prepare('SELECT max(revision) AS revision FROM events WHERE stream = ?');
  const insert = db.prepare('INSERT INTO events (id, stream, revision, type, data, metadata) VALUES (?, ?, ?, ?, ?, ?)');
  const append = db.transaction((e: ReturnType<typeof sessionEvent>) => {
    // The same expected-revision check our store makes (the stream must not exist).
    if ((last.get(e.stream) as { revision: number | null }).revision !== null) throw new Error('exists');
    insert.run(e.id, e.stream, 0, e.type, JSON.stringify(e.data), JSON.stringify(e.metadata));
  });
  const started = performance.now();
  let n = 0;
  while (performance.now() - started < durationMs) append.immediate(sessionEvent(n++));
  const seconds = (performance.now() - started) / 1000;
  db.close();
  return n / seconds;
}

export async function runSessionsBench(opts: { duration?: number; connections?: number } = {}): Promise<BenchResult> {
  const duration = opts.duration ?? 3;
  const connections = opts.connections ?? 50;
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-sessions-'));
  try {
    const reference = referenceLoop(join(dataDir, 'reference.db'), duration * 1000);

    const service = await startInProcessService({ DATA_DIR: join(dataDir, 'ours'), CHECKOUT_RATE_LIMIT: '100000000' });
    const { ctx, services } = service;
    const org = await createOrganization(ctx, { name: 'Bench', timezone: 'UTC' });
    const offer = await upsertOffer(ctx, {
      organizationId: org.id,
      slug: 'bench-offer',
      name: 'Bench offer',
      theme: { primary_color: '#3355ff', background_color: '#ffffff', text_color: '#111111', font_family: 'system-ui', logo_url: null, button_text: 'Pay' },
      pages: [{ id: 'pay', type: 'checkout', title: 'Checkout', blocks: [{ type: 'price' }] }],
      plan: { product_id: 'xY3kQ9', plan_id: 'aB12cD', plan_name: 'monthly', charges: [{ id: 'ch_1', name: 'Monthly', amount: 1900 }] },
      currency: 'EUR',
    });
    const published = await publishOffer(ctx, offer.uuid);
    const head = await services.store.headPosition();
    if (head !== null) await services.projections!.waitFor(head, 10_000);
    if (published.status !== 'published') throw new Error('bench offer not published');

    const result = await autocannon({
      url: `${service.url}/api/checkout/sessions`,
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json' },
      body: BODY,
      duration,
      connections,
    });
    await service.close();
    if (result.non2xx + result.errors > 0) console.error(`sessions bench: ${result.non2xx + result.errors} non-2xx answers or errors`);
    const ours = result.requests.average;
    return {
      name: 'checkout sessions created over HTTP (durable) vs raw better-sqlite3 append loop (FULL, one tx each)',
      ours,
      reference,
      ratio: ours / reference,
      unit: 'sessions/s',
    };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, connections: { type: 'string' }, runs: { type: 'string' } } });
  const runs = Math.max(1, Number(values.runs ?? 1));
  const results: BenchResult[] = [];
  for (let i = 0; i < runs; i++) {
    const result = await runSessionsBench({
      ...(values.duration ? { duration: Number(values.duration) } : {}),
      ...(values.connections ? { connections: Number(values.connections) } : {}),
    });
    results.push(result);
    console.log(`${result.name}: ours ${result.ours.toFixed(0)} ${result.unit}, reference ${result.reference.toFixed(0)} ${result.unit}, ratio ${result.ratio.toFixed(3)}`);
  }
  const ratios = results.map((r) => r.ratio).sort((a, b) => a - b);
  if (runs > 1) console.log(`median ratio over ${runs} runs: ${ratios[Math.floor(ratios.length / 2)]!.toFixed(3)}`);
  console.log(JSON.stringify(results[results.length - 1]));
}
