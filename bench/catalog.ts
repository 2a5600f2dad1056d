/**
 * Product list throughput: our real service (its own process, 250 products imported through the
 * commands, bearer auth, zod validation, read model) against a bare fastify route returning the
 * same JSON from memory (bench/referenceServer.ts). Both are loaded by autocannon with the same
 * connections and duration, in alternating rounds; the medians give the ratio.
 *
 *   node bin/run-ts.js bench/catalog.ts [--duration 2] [--rounds 7] [--connections 10]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { benchFlags, childEnv, load, pairedRounds, run, serve, stopAll, summarize, type BenchResult } from './processes.ts';

export type { BenchResult };
export type CatalogBenchOptions = {
  durationSeconds?: number;
  rounds?: number;
  warmupSeconds?: number;
  connections?: number;
  log?: (line: string) => void;
};

export const PRODUCTS = 250;

/**
 * The benchmark catalog: products imported beside the demo's until the organization has
 * PRODUCTS, whatever the demo seeds (the License API bench lists the same catalog).
 */
export async function importBenchCatalog(dataDir: string, env: NodeJS.ProcessEnv, organizationId: string, demoProducts: number): Promise<void> {
  const products = Array.from({ length: PRODUCTS - demoProducts }, (_, i) => ({
    key: `bench-${i + 1}`,
    name: `bench-${i + 1}`,
    display_name: `Bench product ${i + 1}`,
    description: `A product of the benchmark catalog, number ${i + 1}.`,
    family: 'saas',
    published: true,
    features: [{ id: 'seats', name: 'Seats', description: null, value: i % 20 }],
    plans: [{ name: 'monthly', display_name: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1000 + i }] }],
  }));
  const file = join(dataDir, 'bench-catalog.json');
  writeFileSync(file, JSON.stringify({ families: [{ lookup_key: 'saas', name: 'SaaS subscriptions' }], products }));
  await run(['bin/commerce.js', 'import', file, '--org', organizationId, '--json'], env);
}

export async function runCatalogBench(opts: CatalogBenchOptions = {}): Promise<BenchResult> {
  const duration = opts.durationSeconds ?? 2;
  const rounds = opts.rounds ?? 7;
  const warmup = opts.warmupSeconds ?? 3;
  const connections = opts.connections ?? 10;
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  // Request logs off on both sides: the comparison is of the request path, not of log volume.
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1' });
  const children: ChildProcess[] = [];
  try {
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as { token: string; organization: { id: string }; products: string[] };
    await importBenchCatalog(dataDir, env, demo.organization.id, demo.products.length);

    const ours = await serve(['bin/commerce.js', 'serve'], env);
    children.push(ours.child);
    const headers = { authorization: `Bearer ${demo.token}`, accept: 'application/json' };
    const listUrl = `${ours.url}/api/catalog/products`;
    const body = Buffer.from(await (await fetch(listUrl, { headers })).arrayBuffer());
    const parsed = JSON.parse(body.toString()) as { data: unknown[] };
    if (parsed.data.length !== PRODUCTS) throw new Error(`expected ${PRODUCTS} products, got ${parsed.data.length}`);
    const bodyFile = join(dataDir, 'reference-body.json');
    writeFileSync(bodyFile, body);
    const reference = await serve(['bin/run-ts.js', 'bench/referenceServer.ts'], childEnv({ REFERENCE_BODY_FILE: bodyFile }));
    children.push(reference.child);
    log(`payload ${body.length} bytes, ${connections} connections, ${warmup}s warm-up, ${rounds} × ${duration}s per side`);

    // Warm both up (JIT, caches), then paired rounds.
    const loadOurs = (seconds: number) => load({ url: listUrl, headers, connections, duration: seconds }, ours.child.pid);
    const loadReference = (seconds: number) =>
      load({ url: `${reference.url}/api/catalog/products`, headers: {}, connections, duration: seconds }, reference.child.pid);
    await loadOurs(warmup);
    await loadReference(warmup);
    const paired = await pairedRounds(rounds, () => loadOurs(duration), () => loadReference(duration), log, 'req/s');
    return summarize('catalog list (250 products)', 'req/s', paired);
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const { duration, rounds, connections } = benchFlags();
  const result = await runCatalogBench({ durationSeconds: duration, rounds, connections, log: (line) => console.log(line) });
  console.log(`${result.name}: ours ${result.ours} ${result.unit}, reference ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.8)`);
  if (result.cpuUsPerRequest) {
    const { ours, reference } = result.cpuUsPerRequest;
    console.log(`server CPU per request: ours ${ours} µs, reference ${reference} µs (reference/ours ${(reference / ours).toFixed(3)})`);
  }
}
