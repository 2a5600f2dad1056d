/**
 * Product list throughput: our real service (its own process, 250 products imported through the
 * commands, bearer auth, zod validation, read model) against a bare fastify route returning the
 * same JSON from memory (bench/referenceServer.ts). Both are loaded by autocannon with the same
 * connections and duration, in alternating rounds; the medians give the ratio.
 *
 *   node bin/run-ts.js bench/catalog.ts [--duration 2] [--rounds 7] [--connections 10]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

export type BenchResult = {
  name: string;
  ours: number;
  reference: number;
  /** Median of the rounds' ours/reference throughput ratios. */
  ratio: number;
  unit: string;
  /** Server CPU time per request (Linux): steadier than req/s on a machine shared with other work. */
  cpuUsPerRequest?: { ours: number; reference: number };
};
export type CatalogBenchOptions = {
  durationSeconds?: number;
  rounds?: number;
  warmupSeconds?: number;
  connections?: number;
  log?: (line: string) => void;
};

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const PRODUCTS = 250;

function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { BASE_URL: _b, PORT: _p, DATA_DIR: _d, ...rest } = process.env;
  return { ...rest, ...extra };
}

function run(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString()));
    child.stderr.on('data', (c: Buffer) => (err += c.toString()));
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited ${code}: ${err}`))));
    child.stdin.end(input);
  });
}

function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env });
    let out = '';
    child.stdout.on('data', (c: Buffer) => {
      out += c.toString();
      const match = /listening on (http:\/\/\S+?) /.exec(out);
      if (match) done({ url: match[1]!, child });
    });
    child.stderr.on('data', (c: Buffer) => process.stderr.write(c));
    child.on('exit', (code) => fail(new Error(`${args.join(' ')} exited ${code}`)));
  });
}

/** CPU time (user + system, ms) a process has used so far, from /proc on Linux; null elsewhere. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return null;
  }
}

type Load = { rps: number; cpuUsPerRequest: number | null };

async function load(url: string, headers: Record<string, string>, connections: number, duration: number, pid?: number): Promise<Load> {
  const before = cpuMs(pid);
  const result = await autocannon({ url, connections, duration, headers, pipelining: 1 });
  const after = cpuMs(pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const served = result.requests.total ?? result.requests.average * duration;
  return {
    rps: result.requests.average,
    cpuUsPerRequest: before === null || after === null || served === 0 ? null : ((after - before) * 1000) / served,
  };
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

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
    const demo = JSON.parse(await run(['bin/commerce.js', 'demo', '--json'], env)) as { token: string; organization: { id: string } };
    const products = Array.from({ length: PRODUCTS - 3 }, (_, i) => ({
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
    await run(['bin/commerce.js', 'import', file, '--org', demo.organization.id, '--json'], env);

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

    // Warm both up (JIT, caches), then alternate which goes first in each round so drift in the
    // machine's load hits both alike; the ratio is the median of the rounds' paired ratios.
    await load(listUrl, headers, connections, warmup);
    await load(`${reference.url}/api/catalog/products`, {}, connections, warmup);
    const oursRps: number[] = [];
    const refRps: number[] = [];
    const ratios: number[] = [];
    const oursCpu: number[] = [];
    const refCpu: number[] = [];
    const loadOurs = () => load(listUrl, headers, connections, duration, ours.child.pid);
    const loadReference = () => load(`${reference.url}/api/catalog/products`, {}, connections, duration, reference.child.pid);
    for (let round = 0; round < rounds; round++) {
      const oursFirst = round % 2 === 0;
      const a = oursFirst ? await loadOurs() : null;
      const r = await loadReference();
      const o = a ?? (await loadOurs());
      oursRps.push(o.rps);
      refRps.push(r.rps);
      ratios.push(o.rps / r.rps);
      if (o.cpuUsPerRequest !== null && r.cpuUsPerRequest !== null) {
        oursCpu.push(o.cpuUsPerRequest);
        refCpu.push(r.cpuUsPerRequest);
      }
      const cpu = o.cpuUsPerRequest !== null && r.cpuUsPerRequest !== null ? `; server CPU ${o.cpuUsPerRequest.toFixed(0)} vs ${r.cpuUsPerRequest.toFixed(0)} µs/request` : '';
      log(`round ${round + 1}: ours ${o.rps.toFixed(0)} req/s, reference ${r.rps.toFixed(0)} req/s, ratio ${(o.rps / r.rps).toFixed(3)}${cpu}`);
    }
    return {
      name: 'catalog list (250 products)',
      ours: Math.round(median(oursRps)),
      reference: Math.round(median(refRps)),
      ratio: Number(median(ratios).toFixed(3)),
      unit: 'req/s',
      ...(oursCpu.length > 0 ? { cpuUsPerRequest: { ours: Math.round(median(oursCpu)), reference: Math.round(median(refCpu)) } } : {}),
    };
  } finally {
    for (const child of children) {
      if (child.exitCode === null) {
        const exited = new Promise((r) => child.once('exit', r));
        child.kill('SIGTERM');
        await exited;
      }
    }
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] && pathToFileURL(resolve(process.argv[1])).href === import.meta.url) {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } } });
  const result = await runCatalogBench({
    durationSeconds: values.duration ? Number(values.duration) : undefined,
    rounds: values.rounds ? Number(values.rounds) : undefined,
    connections: values.connections ? Number(values.connections) : undefined,
    log: (line) => console.log(line),
  });
  console.log(`${result.name}: ours ${result.ours} ${result.unit}, reference ${result.reference} ${result.unit}, ratio ${result.ratio} (goal ≥ 0.8)`);
  if (result.cpuUsPerRequest) {
    const { ours, reference } = result.cpuUsPerRequest;
    console.log(`server CPU per request: ours ${ours} µs, reference ${reference} µs (reference/ours ${(reference / ours).toFixed(3)})`);
  }
}
