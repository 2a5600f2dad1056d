/**
 * `npm run bench`: every benchmark of the project, each run BENCH_RUNS times (default 3), and
 * one table of the medians. Benchmarks of other areas are picked up when their module exists:
 * bench/catalog.ts (runCatalogBench), bench/sessions.ts (runSessionsBench), bench/catch.ts
 * (runCatchBench), bench/manageLists.ts (runManageListsBench), bench/dashboard.ts (runDashboardBench),
 * bench/webhookDelivery.ts (runWebhookDeliveryBench: delivery throughput and lag), bench/fileDownload.ts
 * (runFileDownloadBench: signed downloads against @fastify/static); plus projection rebuild speed (bench/rebuild.ts) and the SDK bundle size.
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { gzipSync } from 'node:zlib';
import { runRebuildBench } from './rebuild.ts';

export type Row = { benchmark: string; figure: string; value: number; unit: string; ratio?: string };

const here = dirname(fileURLToPath(import.meta.url));
const RUNS = Math.max(1, Number(process.env.BENCH_RUNS ?? 3));

const median = (values: number[]) => {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * The other areas' benchmarks return a BenchResult ({name, ours, reference, ratio, unit}: our
 * service against a bare reference doing the same work), or an array of them; rows of
 * {figure|name, value, unit, ratio} and objects of name → number are taken too.
 */
function toRows(benchmark: string, result: unknown): Row[] {
  const list: unknown[] = Array.isArray(result)
    ? result
    : result && typeof result === 'object' && ('name' in result || 'figure' in result)
      ? [result]
      : result && typeof result === 'object'
        ? Object.entries(result as Record<string, unknown>)
            .filter(([, v]) => typeof v === 'number')
            .map(([name, value]) => ({ name, value }))
        : [];
  return list.flatMap((item): Row[] => {
    if (!item || typeof item !== 'object') return [];
    const o = item as Record<string, unknown>;
    const figure = String(o.figure ?? o.name ?? o.label ?? 'value');
    const unit = String(o.unit ?? '');
    if (typeof o.ours === 'number' && typeof o.reference === 'number') {
      return [
        { benchmark, figure: `${figure}: ours`, value: o.ours, unit, ratio: Number(o.ratio ?? o.ours / o.reference).toFixed(2) },
        { benchmark, figure: `${figure}: reference`, value: o.reference, unit, ratio: '1.00' },
      ];
    }
    const value = Number(o.value ?? o.median ?? NaN);
    if (!Number.isFinite(value)) return [];
    const row: Row = { benchmark, figure, value, unit };
    if (o.ratio !== undefined) row.ratio = typeof o.ratio === 'number' ? o.ratio.toFixed(2) : String(o.ratio);
    return [row];
  });
}

/** Runs a benchmark RUNS times and keeps the median of each figure. */
async function medianRows(benchmark: string, run: () => Promise<unknown>): Promise<Row[]> {
  const runs: Row[][] = [];
  for (let i = 0; i < RUNS; i++) {
    process.stderr.write(`  ${benchmark}: run ${i + 1}/${RUNS}\n`);
    runs.push(toRows(benchmark, await run()));
  }
  return runs[0]!.map((row) => {
    const values = runs.map((r) => r.find((x) => x.figure === row.figure)?.value).filter((v): v is number => v !== undefined);
    const ratios = runs.map((r) => Number(r.find((x) => x.figure === row.figure)?.ratio)).filter((v) => Number.isFinite(v));
    return { ...row, value: median(values), ...(ratios.length === runs.length ? { ratio: median(ratios).toFixed(2) } : {}) };
  });
}

async function optional(file: string, exportName: string): Promise<(() => Promise<unknown>) | null> {
  const path = join(here, file);
  if (!existsSync(path)) return null;
  const module = (await import(pathToFileURL(path).href)) as Record<string, unknown>;
  const fn = module[exportName];
  return typeof fn === 'function' ? () => (fn as () => Promise<unknown>)() : null;
}

async function sdkBundle(): Promise<Row[]> {
  const build = join(here, '..', 'sdk', 'build.ts');
  if (!existsSync(build)) return [];
  const { buildSdkAssets } = (await import(pathToFileURL(build).href)) as { buildSdkAssets: () => Promise<Record<string, string>> };
  const assets = await buildSdkAssets();
  return Object.entries(assets).map(([name, code]) => ({
    benchmark: 'sdk bundle',
    figure: `${name} (minified, gzipped)`,
    value: gzipSync(code).length / 1024,
    unit: 'KiB',
    ratio: `${(code.length / 1024).toFixed(1)} KiB raw`,
  }));
}

function format(value: number): string {
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  if (value >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

export function table(rows: Row[]): string {
  const header = ['benchmark', 'figure', 'median', 'unit', 'ratio / note'];
  const cells = rows.map((r) => [r.benchmark, r.figure, format(r.value), r.unit, r.ratio ?? '']);
  return [`| ${header.join(' | ')} |`, `|${header.map((_, i) => (i === 2 ? '---:' : '---')).join('|')}|`, ...cells.map((c) => `| ${c.join(' | ')} |`)].join('\n');
}

const rows: Row[] = [];
for (const [file, name, label] of [
  ['catalog.ts', 'runCatalogBench', 'catalog'],
  ['sessions.ts', 'runSessionsBench', 'sessions'],
  ['catch.ts', 'runCatchBench', 'catch URL'],
  ['manageLists.ts', 'runManageListsBench', 'management lists'],
  ['dashboard.ts', 'runDashboardBench', 'dashboard'],
  ['webhookDelivery.ts', 'runWebhookDeliveryBench', 'event webhooks'],
  ['subscriptionStatement.ts', 'runStatementBench', 'subscription statement'],
  ['licenses.ts', 'runLicensesBench', 'License API'],
  ['fileDownload.ts', 'runFileDownloadBench', 'file download'],
] as const) {
  const run = await optional(file, name);
  if (run) rows.push(...(await medianRows(label, run)));
  else process.stderr.write(`  ${label}: bench/${file} not present, skipped\n`);
}
rows.push(
  ...(await medianRows('projection rebuild', async () => {
    const f = await runRebuildBench();
    return [
      { figure: `rebuild of all ${f.projections} projections from ${f.logEvents} events (events applied per s)`, value: f.rebuildEventsPerSecond, unit: 'events/s', ratio: f.ratio },
      { figure: 'raw SQLite insert loop (ceiling)', value: f.rawInsertsPerSecond, unit: 'rows/s', ratio: 1 },
    ];
  })),
);
rows.push(...(await sdkBundle()));
console.log(`\nMedians of ${RUNS} run(s) on ${process.platform} ${process.arch}, Node ${process.version}:\n`);
console.log(table(rows));
