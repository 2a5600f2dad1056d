/**
 * Soak test: the real server process under a steady load at half its measured peak, for
 * SOAK_SECONDS (default 300). Every SOAK_INTERVAL seconds (default 10) it records the server's
 * RSS and V8 heap (from /metrics) and the p99 latency of that interval, prints them, and ends
 * with a verdict: memory flat after warm-up, p99 stable. Not part of `npm test`.
 *
 *   node bin/run-ts.js bench/soak.ts                 (SOAK_SECONDS=60 for a short run)
 */
import { rmSync } from 'node:fs';
import { readFileSync } from 'node:fs';
import { load, type LoadRequest } from './loadClient.ts';
import { publishOffer, upsertOffer } from '../modules/checkout/offerCommands.ts';
import { runImport } from '../app/import/importFile.ts';
import { offerContent } from '../test/checkout/checkoutFixtures.ts';
import { seedIdentity, startServerProcess, tempDataDir, withServices } from '../test/helpers/serverProcess.ts';

const SECONDS = Number(process.env.SOAK_SECONDS ?? 300);
const INTERVAL = Number(process.env.SOAK_INTERVAL ?? 10);
const PEAK_SECONDS = Number(process.env.SOAK_PEAK_SECONDS ?? 5);
const CONNECTIONS = Number(process.env.SOAK_CONNECTIONS ?? 8);
/** Memory may grow this much after warm-up (caches filling) and still count as flat. */
const MEMORY_BOUND_MB = Number(process.env.SOAK_MEMORY_BOUND_MB ?? 40);

function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
}

async function heapMb(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return Number(/^nodejs_heap_size_used_bytes (\S+)/m.exec(text)?.[1] ?? 0) / 1024 / 1024;
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b);
  return s.length === 0 ? 0 : s[Math.floor(s.length / 2)]!;
};

/** The requests of the load: the catalog list and detail, and session creation. */
async function seed(dataDir: string): Promise<string> {
  const { token, organizationId } = await seedIdentity(dataDir, 'Soak Org');
  await withServices(dataDir, async (services, ctx) => {
    await runImport(
      { command: ctx(organizationId), organizationId, catchUp: async () => undefined },
      {
        products: Array.from({ length: 20 }, (_, i) => ({
          key: `soak-${i}`,
          name: `soak ${i}`,
          display_name: `Soak ${i}`,
          description: 'Soak test product',
          published: true,
          plans: [{ name: 'monthly', display_name: 'Monthly', description: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
        })),
      },
    );
    const offer = await upsertOffer(ctx(organizationId), { organizationId, slug: 'soak-offer', ...offerContent() });
    await publishOffer(ctx(organizationId), offer.uuid);
  });
  return token;
}

async function workload(url: string, token: string): Promise<{ requests: LoadRequest[]; routes: string }> {
  const auth = { authorization: `Bearer ${token}`, accept: 'application/json' };
  const list = (await (await fetch(`${url}/api/catalog/products`, { headers: auth })).json()) as { data: Array<{ id: string }> };
  const requests: LoadRequest[] = [
    { method: 'GET', path: '/api/catalog/products', headers: auth },
    { method: 'GET', path: `/api/catalog/products/${list.data[0]!.id}`, headers: auth },
    { method: 'POST', path: '/api/checkout/sessions', headers: { 'content-type': 'application/json', accept: 'application/json' }, body: '{"offer":"soak-offer"}' },
  ];
  // SOAK_ROUTES=list,detail,session picks some of them (to find which one a trend comes from).
  const pick = (process.env.SOAK_ROUTES ?? 'list,detail,session').split(',');
  const chosen = requests.filter((_, i) => pick.includes(['list', 'detail', 'session'][i]!));
  return { requests: chosen, routes: chosen.map((r) => `${r.method} ${r.path}`).join(', ') };
}

const dataDir = tempDataDir('commerce-soak-');
const token = await seed(dataDir);
const server = await startServerProcess({
  dataDir,
  env: { LOG_LEVEL: 'warn', CHECKOUT_RATE_LIMIT: '100000000', CATCH_RATE_LIMIT_MAX: '100000000', PROMO_RATE_LIMIT_MAX: '100000000' },
});
const pid = server.child.pid!;
const { requests, routes } = await workload(server.url, token);
try {
  console.log(`soak: ${routes}; ${SECONDS} s in ${INTERVAL} s intervals`);
  const peak = await load({ url: server.url, connections: CONNECTIONS, duration: PEAK_SECONDS, requests });
  const rate = Math.max(1, Math.floor(peak.requests.average / 2));
  console.log(`peak ${Math.round(peak.requests.average)} req/s (p99 ${peak.latency.p99} ms); soaking at ${rate} req/s`);
  console.log('  t(s)   req/s   p99(ms)   rss(MB)   heap(MB)   non-2xx');
  const samples: Array<{ t: number; rss: number; heap: number; p99: number }> = [];
  for (let t = INTERVAL; t <= SECONDS; t += INTERVAL) {
    const r = await load({ url: server.url, connections: CONNECTIONS, duration: INTERVAL, overallRate: rate, requests });
    const sample = { t, rss: rssMb(pid), heap: await heapMb(server.url), p99: r.latency.p99 };
    samples.push(sample);
    console.log(
      `${String(t).padStart(6)} ${String(Math.round(r.requests.average)).padStart(7)} ${String(sample.p99).padStart(9)} ${sample.rss.toFixed(1).padStart(9)} ${sample.heap.toFixed(1).padStart(10)} ${String(r.non2xx + r.errors).padStart(9)}`,
    );
  }
  // Verdict over the samples after warm-up (the first fifth, at least one interval).
  const warm = samples.slice(Math.max(1, Math.floor(samples.length / 5)));
  const third = Math.max(1, Math.floor(warm.length / 3));
  const early = warm.slice(0, third);
  const late = warm.slice(-third);
  // Floors, not medians: between major GCs the heap climbs by design; a leak raises the floor.
  const floor = (v: number[]) => Math.min(...v);
  const rssGrowth = floor(late.map((s) => s.rss)) - floor(early.map((s) => s.rss));
  const heapGrowth = floor(late.map((s) => s.heap)) - floor(early.map((s) => s.heap));
  const p99Early = median(early.map((s) => s.p99));
  const p99Late = median(late.map((s) => s.p99));
  const memoryFlat = rssGrowth <= MEMORY_BOUND_MB && heapGrowth <= MEMORY_BOUND_MB / 2;
  // p99 on loopback is a few ms: allow 2 ms of jitter besides the ratio.
  const p99Stable = p99Late <= p99Early * 1.5 + 2;
  console.log(
    `\nafter warm-up (lowest sample of the first third vs the last): RSS ${rssGrowth >= 0 ? '+' : ''}${rssGrowth.toFixed(1)} MB, heap ${heapGrowth >= 0 ? '+' : ''}${heapGrowth.toFixed(1)} MB (bound ${MEMORY_BOUND_MB} MB); p99 ${p99Early} ms → ${p99Late} ms`,
  );
  console.log(`verdict: memory ${memoryFlat ? 'flat' : 'GROWING'}, p99 ${p99Stable ? 'stable' : 'DRIFTING'} → ${memoryFlat && p99Stable ? 'PASS' : 'FAIL'}`);
  process.exitCode = memoryFlat && p99Stable ? 0 : 1;
} finally {
  server.child.kill('SIGTERM');
  await server.exited;
  rmSync(dataDir, { recursive: true, force: true });
}
