/**
 * The sales CSV export at 100,000 completed checkout sessions: GET /api/exports/sales.csv over
 * real HTTP with an API key, the body streamed to a file, against a raw better-sqlite3 SELECT of
 * the same rows (same filter, same order, same indexes) streamed to a file, in the same run,
 * alternating rounds. Figures: rows per second of each (medians), their ratio (goal ≥ 0.5), and
 * the peak growth of this process's RSS during an export over the RSS before it (goal ≤ 50 MB):
 * the server and the client both run here, so that growth bounds what the export holds.
 *
 * The read-model documents are written straight into the read store, as the checkout projection
 * would write them: what is measured is the reading.
 *
 *   node bin/run-ts.js bench/csvExport.ts [--rows 100000] [--rounds 3]
 */
import Database from 'better-sqlite3';
import { closeSync, createWriteStream, mkdtempSync, openSync, rmSync, statSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { ReadableStream as WebReadableStream } from 'node:stream/web';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { buildApp } from '../app/httpApp.ts';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { createApiKey, createOrganization, createUser } from '../modules/identity/identityCommands.ts';
import { CHECKOUT_SESSIONS } from '../modules/checkout/checkoutProjection.ts';
import type { Doc, WriteOp } from '../platform/readStore/readStore.ts';
import { median } from './processes.ts';

const ORG = 'org_bench';
const MB = 1024 * 1024;

/** A completed sale as the checkout projection stores it; one in ten refunded in part. */
function saleDoc(i: number): Doc {
  const created = 1_750_000_000 + i * 20;
  return {
    id: `cs_bench${i}`,
    organization_id: ORG,
    status: 'completed',
    total: 1900 + (i % 7) * 100,
    currency: 'EUR',
    mode: i % 5 === 0 ? 'test' : 'live',
    expires_at: created + 86_400,
    created_at: created,
    offer: { uuid: 'u', id: 'xY3kQ9', slug: 'bench-offer', name: 'Bench offer, "pro"' },
    customer: { email: `buyer${i}@example.com`, name: `Buyer ${i}`, user_id: null },
    metadata: {},
    promo: null,
    promo_tier: null,
    started_at: created + 5,
    cancelled_at: null,
    completed_at: created + 10,
    expired_at: null,
    payment: { brand: 'visa', last4: '4242' },
    last_decline: null,
    invoice: { id: `in_bench${i}`, number: i + 1, status: 'paid', total: 1900, currency: 'EUR', customer: null, ...(i % 10 === 0 ? { amount_refunded: 500 } : {}) },
    open_until: null,
    updated_at: created + 10,
  };
}

export type CsvExportBench = { rows: number; oursRowsPerSecond: number; referenceRowsPerSecond: number; ratio: number; documentRowsPerSecond: number; peakRssGrowthMb: number };

export async function runCsvExportBench(opts: { rows?: number; rounds?: number; log?: (line: string) => void } = {}): Promise<CsvExportBench> {
  const rows = opts.rows ?? 100_000;
  const rounds = opts.rounds ?? 3;
  const log = opts.log ?? (() => undefined);
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-export-'));
  const config = loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' });
  // Projections run (they declare the indexes); the seeded documents are no projection's events.
  const services = await compose(config, { runProjections: true, logger: { error: () => undefined, info: () => undefined } });
  const app = await buildApp(services);
  try {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const ctx = { store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: ORG, occurred_at: Math.floor(Date.now() / 1000) } };
    await createOrganization(ctx, { id: ORG, name: 'Bench', timezone: 'UTC' });
    const user = await createUser(ctx, { email: 'bench@example.com', organizationId: ORG });
    const { token } = await createApiKey(ctx, { userId: user.id, organizationId: ORG });
    let checkpoint: number | null = null;
    for (let i = 0; i < rows; i += 5000) {
      const ops: WriteOp[] = Array.from({ length: Math.min(5000, rows - i) }, (_, n) => ({ op: 'upsert', collection: CHECKOUT_SESSIONS, doc: saleDoc(i + n) }));
      const next: number = (checkpoint ?? 0) + 1;
      await services.readStore.commit('bench_seed', ops, { expected: checkpoint, next });
      checkpoint = next;
    }
    const file = join(dataDir, 'out.csv');

    const ours = async (): Promise<{ ms: number; rssGrowth: number; lines: number }> => {
      const before = process.memoryUsage.rss();
      let peak = before;
      const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage.rss())), 5);
      const start = performance.now();
      const response = await fetch(`${url}/api/exports/sales.csv`, { headers: { authorization: `Bearer ${token}` } });
      if (response.status !== 200 || !response.body) throw new Error(`export answered ${response.status}: ${await response.text()}`);
      let lines = 0;
      await pipeline(
        Readable.fromWeb(response.body as WebReadableStream<Uint8Array>),
        async function* (chunks: AsyncIterable<Buffer>) {
          for await (const chunk of chunks) {
            for (let at = chunk.indexOf(10); at !== -1; at = chunk.indexOf(10, at + 1)) lines++;
            yield chunk;
          }
        },
        createWriteStream(file),
      );
      const ms = performance.now() - start;
      clearInterval(sampler);
      peak = Math.max(peak, process.memoryUsage.rss());
      return { ms, rssGrowth: peak - before, lines };
    };

    /**
     * A raw SELECT through the same index, in the same order, to a file: `columns` are the
     * export's (json_extract in SQLite, joined as they come, no quoting or formatting), or the
     * whole stored document.
     */
    const FIELDS = [
      'id', 'completed_at', 'created_at', 'mode', 'offer.id', 'offer.name', 'customer.email', 'customer.name', 'customer.user_id',
      'total', 'invoice.amount_refunded', 'total', 'currency', 'promo', 'invoice.id', 'invoice.number', 'invoice.status', 'subscription.id',
    ];
    const reference = (columns: 'export' | 'document'): number => {
      const db = new Database(join(dataDir, 'commerce.db'), { readonly: true, fileMustExist: true });
      const select = columns === 'export' ? FIELDS.map((f) => `json_extract(doc, '$.${f}')`).join(', ') : 'doc';
      const stmt = db
        .prepare<[string], unknown[]>(
          `SELECT ${select} FROM rm_${CHECKOUT_SESSIONS} WHERE json_extract(doc, '$.organization_id') = ? AND json_extract(doc, '$.status') = 'completed' ORDER BY json_extract(doc, '$.completed_at'), id`,
        )
        .raw(true);
      const fd = openSync(file, 'w');
      const start = performance.now();
      let chunk = '';
      let count = 0;
      for (const row of stmt.iterate(ORG)) {
        chunk += `${row.join(',')}\r\n`;
        count++;
        if (chunk.length >= 64 * 1024) {
          writeSync(fd, chunk);
          chunk = '';
        }
      }
      writeSync(fd, chunk);
      closeSync(fd);
      const ms = performance.now() - start;
      db.close();
      if (count !== rows) throw new Error(`the raw SELECT read ${count} rows, not ${rows}`);
      return ms;
    };

    // One export first, not measured: the routes' first run compiles them.
    await ours();
    const oursMs: number[] = [];
    const referenceMs: number[] = [];
    const documentMs: number[] = [];
    let peakGrowth = 0;
    for (let round = 0; round < rounds; round++) {
      const r = reference('export');
      const d = reference('document');
      referenceMs.push(r);
      documentMs.push(d);
      const o = await ours();
      if (o.lines !== rows + 1) throw new Error(`the export wrote ${o.lines} lines, not ${rows + 1}`);
      oursMs.push(o.ms);
      peakGrowth = Math.max(peakGrowth, o.rssGrowth);
      log(`round ${round + 1}: export ${o.ms.toFixed(0)} ms (${(statSync(file).size / MB).toFixed(1)} MB, RSS +${(o.rssGrowth / MB).toFixed(1)} MB), raw SELECT of its columns ${r.toFixed(0)} ms, of the documents ${d.toFixed(0)} ms`);
    }
    const rate = (ms: number[]) => rows / (median(ms) / 1000);
    return {
      rows,
      oursRowsPerSecond: Math.round(rate(oursMs)),
      referenceRowsPerSecond: Math.round(rate(referenceMs)),
      ratio: rate(oursMs) / rate(referenceMs),
      documentRowsPerSecond: Math.round(rate(documentMs)),
      peakRssGrowthMb: peakGrowth / MB,
    };
  } finally {
    await app.close();
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { rows: { type: 'string', default: '100000' }, rounds: { type: 'string', default: '3' } } });
  const r = await runCsvExportBench({ rows: Number(values.rows), rounds: Number(values.rounds), log: (line) => console.log(line) });
  console.log(
    `sales CSV export of ${r.rows} rows: ${r.oursRowsPerSecond} rows/s vs a raw SELECT of its columns to a file ${r.referenceRowsPerSecond} rows/s, ratio ${r.ratio.toFixed(2)} (goal ≥ 0.5); ` +
      `vs a raw SELECT of the stored documents ${r.documentRowsPerSecond} rows/s, ratio ${(r.oursRowsPerSecond / r.documentRowsPerSecond).toFixed(2)}; ` +
      `peak RSS growth ${r.peakRssGrowthMb.toFixed(1)} MB (goal ≤ 50)`,
  );
}
