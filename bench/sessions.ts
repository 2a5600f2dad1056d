/**
 * Checkout sessions created per second over real HTTP (POST /api/checkout/sessions: offer lookup,
 * CheckoutSessionCreated appended durably with synchronous=FULL, read-your-writes wait for the
 * projection), our service in its own process, against a raw better-sqlite3 loop that appends the
 * same event to the same table shape, synchronous=FULL, one transaction per session. Alternating
 * paired rounds; the ratio is the median of the rounds' ratios.
 *
 *   node bin/run-ts.js bench/sessions.ts [--duration 3] [--rounds 5] [--connections 50]
 */
import type { ChildProcess } from 'node:child_process';
import Database from 'better-sqlite3';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFlags, childEnv, load, pairedRounds, run, serve, stopAll, summarize, type BenchResult } from './processes.ts';

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

export type SessionsBenchOptions = { duration?: number; rounds?: number; connections?: number; log?: (line: string) => void };

export async function runSessionsBench(opts: SessionsBenchOptions = {}): Promise<BenchResult> {
  const duration = opts.duration ?? 3;
  const rounds = opts.rounds ?? 5;
  const connections = opts.connections ?? 50;
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-sessions-'));
  const env = childEnv({ DATA_DIR: join(dataDir, 'ours'), LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', CHECKOUT_RATE_LIMIT: '100000000' });
  const children: ChildProcess[] = [];
  try {
    // The demo's published offer: what the seller's page would open.
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as { offer: { slug: string } };
    const ours = await serve(['bin/commerce.js', 'serve'], env);
    children.push(ours.child);
    const body = JSON.stringify({ offer: demo.offer.slug, metadata: { source: 'landing', campaign: 'spring' } });
    const loadOurs = (seconds: number) =>
      load(
        { url: `${ours.url}/api/checkout/sessions`, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body, connections, duration: seconds },
        ours.child.pid,
      );
    let referenceRuns = 0;
    const loadReference = async (seconds: number) => ({
      rps: referenceLoop(join(dataDir, `reference-${referenceRuns++}.db`), seconds * 1000),
      cpuUsPerRequest: null,
    });
    log(`${connections} connections, ${rounds} × ${duration}s per side`);
    await loadOurs(2);
    await loadReference(1);
    const paired = await pairedRounds(rounds, () => loadOurs(duration), () => loadReference(duration), log, 'sessions/s');
    return summarize('checkout sessions created over HTTP (durable) vs raw better-sqlite3 append loop (FULL, one tx each)', 'sessions/s', paired);
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const result = await runSessionsBench({ ...benchFlags(), log: (line) => console.log(line) });
  console.log(`${result.name}: ours ${result.ours} ${result.unit}, reference ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.5)`);
}
