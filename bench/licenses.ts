/**
 * License validation throughput: `POST /api/licenses/validate` (find the key by its hash, fold
 * its stream, sign an Ed25519 token) against the catalog list of bench/catalog.ts (250 products,
 * bearer auth, its cached page) served by the same process, in alternating rounds of autocannon
 * with the same connections and duration; the medians give the ratio (goal ≥ 0.5).
 *
 *   node bin/run-ts.js bench/licenses.ts [--duration 2] [--rounds 7] [--connections 10]
 */
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { compose } from '../app/compose.ts';
import { benefitGrantStream, productBenefitsStream } from '../modules/benefits/domain/benefitTypes.ts';
import { issueLicenseKey } from '../modules/licenses/licenseCommands.ts';
import { licenseKeyBox } from '../modules/licenses/licenseKeyCodec.ts';
import { toNewEvent } from '../platform/es/index.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { importBenchCatalog, PRODUCTS } from './catalog.ts';
import { benchFlags, childEnv, load, pairedRounds, run, serve, stopAll, summarize, type BenchResult } from './processes.ts';

export type LicensesBenchOptions = { durationSeconds?: number; rounds?: number; warmupSeconds?: number; connections?: number; log?: (line: string) => void };

/** A license key benefit granted on the demo organization, its key issued as the subscriber does: the key in plain. */
async function seedKey(dataDir: string, organizationId: string): Promise<string> {
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: false, watchProjections: false, logger: { error: () => undefined, info: () => undefined } });
  try {
    const metadata = { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: organizationId, occurred_at: Math.floor(Date.now() / 1000) };
    const properties = { prefix: 'BENCH', activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' as const };
    const benefit = { id: 'ben_bench', organization_id: organizationId, product_id: 'prod_bench', type: 'license_key' as const, description: 'Bench license', properties, created_at: metadata.occurred_at };
    await services.store.append(productBenefitsStream('prod_bench'), [toNewEvent({ type: 'BenefitCreated', data: benefit }, metadata)], 'any');
    const grant = {
      grant_id: 'bgr_bench',
      organization_id: organizationId,
      mode: 'test' as const,
      benefit_id: 'ben_bench',
      benefit_type: 'license_key' as const,
      product_id: 'prod_bench',
      customer_id: 'cus_bench',
      source: { type: 'checkout_session' as const, id: 'cs_bench' },
      cause: 'checkout.completed' as const,
      invoice_id: null,
      granted_at: metadata.occurred_at,
    };
    await services.store.append(benefitGrantStream('bgr_bench'), [toNewEvent({ type: 'BenefitGranted', data: grant }, metadata)], 'any');
    const state = await issueLicenseKey({ store: services.store, metadata }, services.secrets.data, grant, properties);
    return licenseKeyBox(services.secrets.data).open(state.key.sealed_key);
  } finally {
    await services.close();
  }
}

export async function runLicensesBench(opts: LicensesBenchOptions = {}): Promise<BenchResult> {
  const duration = opts.durationSeconds ?? 2;
  const rounds = opts.rounds ?? 7;
  const warmup = opts.warmupSeconds ?? 3;
  const connections = opts.connections ?? 10;
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  // The limits out of the way: one address and one key send every request.
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', LICENSE_RATE_LIMIT_PER_ADDRESS: '100000000', LICENSE_RATE_LIMIT_PER_KEY: '100000000' });
  const children: ChildProcess[] = [];
  try {
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as { token: string; organization: { id: string }; products: string[] };
    await importBenchCatalog(dataDir, env, demo.organization.id, demo.products.length);
    const key = await seedKey(dataDir, demo.organization.id);
    const server = await serve(['bin/commerce.js', 'serve'], env);
    children.push(server.child);

    const validate = { url: `${server.url}/api/licenses/validate`, method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: JSON.stringify({ key }) };
    const catalog = { url: `${server.url}/api/catalog/products`, headers: { authorization: `Bearer ${demo.token}`, accept: 'application/json' } };
    const answer = (await (await fetch(validate.url, validate)).json()) as { valid?: boolean };
    if (answer.valid !== true) throw new Error(`the seeded key does not validate: ${JSON.stringify(answer)}`);
    const listed = (await (await fetch(catalog.url, { headers: catalog.headers })).json()) as { data: unknown[] };
    if (listed.data.length !== PRODUCTS) throw new Error(`expected ${PRODUCTS} products, got ${listed.data.length}`);
    log(`catalog of ${listed.data.length} products, ${connections} connections, ${warmup}s warm-up, ${rounds} × ${duration}s per side`);

    const loadValidate = (seconds: number) => load({ ...validate, connections, duration: seconds }, server.child.pid);
    const loadCatalog = (seconds: number) => load({ ...catalog, connections, duration: seconds }, server.child.pid);
    await loadValidate(warmup);
    await loadCatalog(warmup);
    const paired = await pairedRounds(rounds, () => loadValidate(duration), () => loadCatalog(duration), log, 'req/s');
    return summarize(`license validate vs catalog list (${PRODUCTS} products)`, 'req/s', paired);
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const { duration, rounds, connections } = benchFlags();
  const result = await runLicensesBench({ durationSeconds: duration, rounds, connections, log: (line) => console.log(line) });
  console.log(`${result.name}: validate ${result.ours} ${result.unit}, catalog list ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.5)`);
}
