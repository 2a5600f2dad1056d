/**
 * File download throughput: a buyer's signed download (`/downloads/{file}`: HMAC check, file and
 * grant lookups, the download recorded durably, the bytes streamed from the data directory) on our
 * real service in its own process, against @fastify/static serving the same file from the same
 * directory (bench/referenceStaticServer.ts). Both are loaded by autocannon with the same
 * connections and duration, in alternating rounds; the medians give the ratio.
 *
 *   node bin/run-ts.js bench/fileDownload.ts [--duration 2] [--rounds 7] [--connections 10] [--size-mib 4]
 */
import type { ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Readable } from 'node:stream';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { compose } from '../app/compose.ts';
import { runImport } from '../app/import/importFile.ts';
import { createBenefit } from '../modules/benefits/benefitCommands.ts';
import { benefitGrantDecider } from '../modules/benefits/domain/benefitGrant.ts';
import { benefitGrantStream } from '../modules/benefits/domain/benefitTypes.ts';
import { grantIdFor } from '../modules/benefits/index.ts';
import { loadProductByKey } from '../modules/catalog/index.ts';
import { uploadFile } from '../modules/files/fileCommands.ts';
import { downloadUrl } from '../modules/files/index.ts';
import { allProjections } from '../app/allProjections.ts';
import type { CommandContext } from '../platform/es/handleCommand.ts';
import { handleCommand } from '../platform/es/handleCommand.ts';
import { catchUpProjections } from '../platform/es/projectionRunner.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { benchFlags, childEnv, load, pairedRounds, run, serve, stopAll, summarize, type BenchResult } from './processes.ts';

export type FileDownloadBenchOptions = {
  durationSeconds?: number;
  rounds?: number;
  warmupSeconds?: number;
  connections?: number;
  sizeMiB?: number;
  log?: (line: string) => void;
};

export async function runFileDownloadBench(opts: FileDownloadBenchOptions = {}): Promise<BenchResult> {
  const duration = opts.durationSeconds ?? 2;
  const rounds = opts.rounds ?? 7;
  const warmup = opts.warmupSeconds ?? 3;
  const connections = opts.connections ?? 10;
  const size = Math.round((opts.sizeMiB ?? 4) * 1024 * 1024);
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-files-'));
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', DOWNLOAD_RATE_LIMIT_PER_LINK: '1000000' });
  const children: ChildProcess[] = [];
  try {
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as { organization: { id: string } };
    const organizationId = demo.organization.id;
    const customerId = 'cus_bench';
    // The file, its benefit and the buyer's grant, written as the commands write them; then the
    // link is minted with the data directory's own secret, as the buyer's page would.
    const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: false, logger: { error: () => undefined, info: () => undefined } });
    let fileId: string;
    const link = () => downloadUrl(services, { organizationId, fileId, customerId });
    try {
      const ctx = (): CommandContext => ({ store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(Date.now() / 1000) } });
      const file = await uploadFile(ctx(), services.files, { organizationId, filename: 'bench.bin', type: 'application/octet-stream', source: Readable.from([randomBytes(size)]) });
      fileId = file.id;
      await runImport(
        { command: ctx(), organizationId, catchUp: () => catchUpProjections(services.store, services.readStore, allProjections) },
        { products: [{ key: 'bench-files', name: 'bench-files', plans: [{ name: 'once', display_name: 'Once', type: 'one_time', renew_interval: null, currency_code: 'EUR', charges: [{ amount: 900 }] }] }] },
      );
      const product = (await loadProductByKey(ctx(), organizationId, 'bench-files'))!;
      const { benefit } = await createBenefit(ctx(), { organizationId, product: product.routeKey, type: 'file', description: 'Bench file', properties: { files: [file.id] } });
      const source = { type: 'checkout_session' as const, id: 'cs_bench' };
      const grantId = grantIdFor(benefit.id, source);
      await handleCommand(ctx(), benefitGrantStream(grantId), benefitGrantDecider, {
        type: 'Grant',
        regrant: false,
        grant: { grant_id: grantId, organization_id: organizationId, mode: 'test', benefit_id: benefit.id, benefit_type: 'file', product_id: product.routeKey, customer_id: customerId, source, cause: 'checkout.completed', invoice_id: null, granted_at: Math.floor(Date.now() / 1000) },
      });
      await catchUpProjections(services.store, services.readStore, allProjections);
    } finally {
      await services.close();
    }

    const ours = await serve(['bin/commerce.js', 'serve'], env);
    children.push(ours.child);
    const reference = await serve(['bin/run-ts.js', 'bench/referenceStaticServer.ts'], childEnv({ REFERENCE_ROOT: join(dataDir, 'files') }));
    children.push(reference.child);
    for (const url of [`${ours.url}${link()}`, `${reference.url}/static/${fileId!}`]) {
      const response = await fetch(url);
      const length = (await response.arrayBuffer()).byteLength;
      if (response.status !== 200 || length !== size) throw new Error(`${url}: ${response.status}, ${length} bytes`);
    }
    log(`file ${size} bytes, ${connections} connections, ${warmup}s warm-up, ${rounds} × ${duration}s per side`);

    const MiB = size / (1024 * 1024);
    const asMiB = async (loaded: Promise<{ rps: number; cpuUsPerRequest: number | null }>) => {
      const l = await loaded;
      return { rps: l.rps * MiB, cpuUsPerRequest: l.cpuUsPerRequest };
    };
    // A fresh link each load: a link lives 15 minutes.
    const loadOurs = (seconds: number) => asMiB(load({ url: `${ours.url}${link()}`, connections, duration: seconds }, ours.child.pid));
    const loadReference = (seconds: number) => asMiB(load({ url: `${reference.url}/static/${fileId!}`, connections, duration: seconds }, reference.child.pid));
    await loadOurs(warmup);
    await loadReference(warmup);
    const paired = await pairedRounds(rounds, () => loadOurs(duration), () => loadReference(duration), log, 'MiB/s');
    return summarize(`file download (${opts.sizeMiB ?? 4} MiB, signed link)`, 'MiB/s', paired);
  } finally {
    await stopAll(children);
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const { duration, rounds, connections } = benchFlags();
  const sizeFlag = parseArgs({ options: { 'size-mib': { type: 'string' }, duration: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } } }).values['size-mib'];
  const result = await runFileDownloadBench({ durationSeconds: duration, rounds, connections, sizeMiB: sizeFlag ? Number(sizeFlag) : undefined, log: (line) => console.log(line) });
  console.log(`${result.name}: ours ${result.ours} ${result.unit}, reference ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.5)`);
  if (result.cpuUsPerRequest) {
    const { ours, reference } = result.cpuUsPerRequest;
    console.log(`server CPU per download: ours ${ours} µs, reference ${reference} µs (reference/ours ${(reference / ours).toFixed(3)})`);
  }
}
