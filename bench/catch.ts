/**
 * Accepted webhooks per second on a catch URL: our real service in its own process (each webhook
 * durably recorded: one WebhookReceived carrying the workflow it starts, fsynced before the
 * answer; projections and the automation subscriber running beside it, which reads every
 * reception and, the sequence having no actions, has nothing to run or record for it) against a
 * bare fastify route that parses the same JSON and answers
 * (bench/referenceCatchServer.ts). Both are loaded by autocannon with the same connections and
 * duration, in alternating rounds; the medians give the ratio.
 *
 * Under full load the automation subscriber falls behind and catches up afterwards. After each of
 * our rounds the benchmark waits until it has (so that work never runs during the reference's
 * round, taking its CPU), and our server's CPU from the round's start to then, per webhook, is
 * the round's all-told cost (`cpuUsPerWebhookDrained`).
 *
 *   node bin/run-ts.js bench/catch.ts [--duration 3] [--rounds 7] [--connections 50] [--reception-only]
 *
 * `--reception-only` is a diagnostic, not the goal's measure: our server runs without its
 * projections and background jobs (RUN_PROJECTIONS=false, RUN_BACKGROUND_JOBS=false), so each
 * webhook costs only the HTTP layer, the reception command and its durable append. It shows the
 * ceiling the rest of the service's work per webhook is taken from.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import Database from 'better-sqlite3';
import { benchFlags, childEnv, cpuMs, load, median, pairedRounds, run, serve, stopAll, summarize, type BenchResult } from './processes.ts';

export type CatchBenchResult = BenchResult & {
  /** Median over our rounds of our server's CPU per webhook, the automation backlog's drain included. */
  cpuUsPerWebhookDrained?: number;
  /** Median time the automation subscriber took to catch up after a round (ms). */
  drainMs: number;
};
/** Waits until the automation subscriber's checkpoint reaches the last reception event; resolves with the time it took (ms). */
export async function untilDrained(file: string, timeoutMs = 120_000): Promise<number> {
  const started = Date.now();
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    const head = db.prepare<[], { p: number | null }>("SELECT max(position) AS p FROM events WHERE stream GLOB 'automation_webhook-*'");
    const checkpoint = db.prepare<[], { p: number | null }>("SELECT position AS p FROM checkpoints WHERE name = 'automation_runner'");
    while ((checkpoint.get()?.p ?? 0) < (head.get()?.p ?? 0)) {
      if (Date.now() - started > timeoutMs) throw new Error('the automation subscriber did not catch up in time');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return Date.now() - started;
  } finally {
    db.close();
  }
}

export type CatchBenchOptions = {
  duration?: number;
  rounds?: number;
  warmup?: number;
  connections?: number;
  /** Our server without projections and background jobs: the reception alone (a diagnostic). */
  receptionOnly?: boolean;
  log?: (line: string) => void;
};

const BODY = JSON.stringify({ email: 'buyer@example.com', ref: 'ORD-1042', source: 'crm', items: [{ sku: 'A', qty: 2 }] });

export async function runCatchBench(opts: CatchBenchOptions = {}): Promise<CatchBenchResult> {
  const duration = opts.duration ?? 3;
  const rounds = opts.rounds ?? 7;
  const warmup = opts.warmup ?? 2;
  const connections = opts.connections ?? 50;
  const log = opts.log ?? (() => undefined);
  const receptionOnly = opts.receptionOnly ?? false;
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', CATCH_RATE_LIMIT_MAX: '100000000' });
  const children: ChildProcess[] = [];
  try {
    const org = JSON.parse(await run(['bin/commerce.js', 'org', 'create', '--name', 'Bench', '--json'], env)) as { id: string };
    const file = join(dataDir, 'bench-sequence.json');
    // A sequence without actions: what is measured is the catch route and the workflow's record, not outbound calls.
    writeFileSync(file, JSON.stringify({ sequences: [{ key: 'bench', name: 'Bench', status: 'active', actions: [], triggers: [{ key: 'bench', name: 'Bench', enabled: true }] }] }));
    const imported = JSON.parse(await run(['bin/commerce.js', 'import', file, '--org', org.id, '--json'], env)) as {
      sections: { sequences: Array<{ triggers: Array<{ catch_path: string }> }> };
    };
    const catchPath = imported.sections.sequences[0]!.triggers[0]!.catch_path;

    const ours = await serve(['bin/commerce.js', 'serve'], receptionOnly ? { ...env, RUN_PROJECTIONS: 'false', RUN_BACKGROUND_JOBS: 'false' } : env);
    children.push(ours.child);
    const reference = await serve(['bin/run-ts.js', 'bench/referenceCatchServer.ts'], childEnv({}));
    children.push(reference.child);
    log(`${connections} connections, ${warmup}s warm-up, ${rounds} × ${duration}s per side`);

    const request = { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections };
    const database = join(dataDir, 'commerce.db');
    const drainedCpu: number[] = [];
    const drainMs: number[] = [];
    const loadOurs = async (seconds: number) => {
      const cpuBefore = cpuMs(ours.child.pid);
      const result = await load({ ...request, url: `${ours.url}${catchPath}`, duration: seconds }, ours.child.pid);
      // Without the automation subscriber there is nothing to wait for.
      if (!receptionOnly) drainMs.push(await untilDrained(database));
      const cpuAfter = cpuMs(ours.child.pid);
      if (!receptionOnly && cpuBefore !== null && cpuAfter !== null) drainedCpu.push(((cpuAfter - cpuBefore) * 1000) / (result.rps * seconds));
      return result;
    };
    const loadReference = (seconds: number) => load({ ...request, url: `${reference.url}${catchPath}`, duration: seconds }, reference.child.pid);
    await loadOurs(warmup);
    await loadReference(warmup);
    drainedCpu.length = drainMs.length = 0;
    const paired = await pairedRounds(rounds, () => loadOurs(duration), () => loadReference(duration), log, 'req/s');
    const drained = drainMs.length > 0 ? Math.round(median(drainMs)) : 0;
    if (!receptionOnly) log(`the automation subscriber caught up ${drained} ms after a round (median)`);
    return {
      ...summarize(receptionOnly ? 'catch webhooks received, nothing else running (diagnostic)' : 'catch webhooks accepted (durable)', 'req/s', paired),
      ...(drainedCpu.length > 0 ? { cpuUsPerWebhookDrained: Math.round(median(drainedCpu)) } : {}),
      drainMs: drained,
    };
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const { switches, ...flags } = benchFlags(['reception-only']);
  const result = await runCatchBench({ ...flags, receptionOnly: switches.has('reception-only'), log: (line) => console.log(line) });
  console.log(`${result.name}: ours ${result.ours} ${result.unit}, reference ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.3)`);
  if (result.cpuUsPerRequest) console.log(`server CPU per request: ours ${result.cpuUsPerRequest.ours} µs, reference ${result.cpuUsPerRequest.reference} µs`);
  if (result.cpuUsPerWebhookDrained) console.log(`our server CPU per webhook, the automation backlog drained: ${result.cpuUsPerWebhookDrained} µs (median of rounds; drained ${result.drainMs} ms after a round)`);
}
