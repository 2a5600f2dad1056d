/**
 * Our catch URL against the peer a user would pick instead: n8n's Webhook trigger ("Respond:
 * Immediately", one No Operation node after it, SQLite, regular execution mode, executions saved
 * as n8n saves them by default). Both servers run on loopback; autocannon loads each with the same
 * connections, body and duration, in alternating rounds. Printed per side: accepted (2xx)
 * requests per second, latency p50/p99, and the server's CPU (its whole process tree) per 1,000
 * webhooks, counted from a round's start until the server has finished the round's work: our
 * automation subscriber's checkpoint past the last reception, n8n's execution table holding a
 * finished execution for every accepted webhook (execution pruning is off for the run, so that
 * count only grows). Work done after the answer is counted on both sides.
 *
 * n8n is not a dependency of this project: install it outside the repository, e.g.
 *
 *   mkdir /work/n8n && cd /work/n8n && npm init -y && npm pkg set overrides.xlsx=0.18.5 \
 *     && npm install n8n@1.123.50
 *
 * (xlsx is overridden to the npm registry's 0.18.5; n8n 1.123.66 and later need Node 22), then
 *
 *   node bin/run-ts.js bench/peers/n8n.ts --n8n /work/n8n [--duration 5] [--rounds 3] [--connections 50] [--sqlite-pool-size 4]
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import Database from 'better-sqlite3';
import { untilDrained } from '../catch.ts';
import { childEnv, median, run, serve, stopAll } from '../processes.ts';

const BODY = JSON.stringify({ email: 'buyer@example.com', ref: 'ORD-1042', source: 'crm', items: [{ sku: 'A', qty: 2 }] });

type Round = { accepted: number; rejected: number; acceptedPerSecond: number; p50: number; p99: number; cpuMsPer1000: number | null };

/** CPU time (ms) used so far by a process and every process under it (n8n starts task runners), from /proc. */
function treeCpuMs(root: number): number | null {
  try {
    const stats = new Map<number, { ppid: number; cpu: number }>();
    for (const name of readdirSync('/proc')) {
      if (!/^\d+$/.test(name)) continue;
      try {
        const fields = readFileSync(`/proc/${name}/stat`, 'utf8').split(') ')[1]!.split(' ');
        stats.set(Number(name), { ppid: Number(fields[1]), cpu: (Number(fields[11]) + Number(fields[12])) * 10 });
      } catch {
        // gone meanwhile
      }
    }
    if (!stats.has(root)) return null;
    let total = 0;
    const queue = [root];
    while (queue.length > 0) {
      const pid = queue.pop()!;
      total += stats.get(pid)?.cpu ?? 0;
      for (const [child, s] of stats) if (s.ppid === pid) queue.push(child);
    }
    return total;
  } catch {
    return null;
  }
}

/** Waits until n8n's database holds at least `count` finished executions. */
async function untilExecuted(file: string, count: number, timeoutMs = 180_000): Promise<void> {
  const until = Date.now() + timeoutMs;
  const db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5_000 });
  try {
    const finished = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM execution_entity WHERE stoppedAt IS NOT NULL');
    while ((finished.get()?.n ?? 0) < count) {
      if (Date.now() > until) throw new Error(`n8n did not finish its executions in time (${finished.get()?.n} of ${count})`);
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    db.close();
  }
}

async function freePort(): Promise<number> {
  return new Promise((done, fail) => {
    const server = createServer();
    server.once('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

async function loadRound(url: string, pid: number, connections: number, duration: number, afterLoad: (accepted: number) => Promise<void>): Promise<Round> {
  const before = treeCpuMs(pid);
  const result = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, connections, duration, pipelining: 1 });
  const accepted = result['2xx'];
  await afterLoad(accepted);
  const after = treeCpuMs(pid);
  return {
    accepted,
    rejected: result.non2xx + result.errors + result.timeouts,
    acceptedPerSecond: accepted / duration,
    p50: result.latency.p50,
    p99: result.latency.p99,
    cpuMsPer1000: before === null || after === null || accepted === 0 ? null : ((after - before) * 1000) / accepted,
  };
}

/** Starts n8n with one active workflow: Webhook (respond immediately) → No Operation. Resolves with its webhook URL. */
async function startN8n(n8nDir: string, options: { poolSize: number | null; log: (line: string) => void }) {
  const bin = join(n8nDir, 'node_modules', 'n8n', 'bin', 'n8n');
  if (!existsSync(bin)) throw new Error(`no n8n in ${n8nDir} (expected ${bin})`);
  const folder = mkdtempSync(join(tmpdir(), 'n8n-bench-'));
  const port = await freePort();
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: folder,
    N8N_USER_FOLDER: folder,
    DB_TYPE: 'sqlite',
    ...(options.poolSize !== null ? { DB_SQLITE_POOL_SIZE: String(options.poolSize) } : {}),
    EXECUTIONS_MODE: 'regular',
    N8N_PORT: String(port),
    N8N_LISTEN_ADDRESS: '127.0.0.1',
    N8N_HOST: '127.0.0.1',
    WEBHOOK_URL: `http://127.0.0.1:${port}/`,
    N8N_LOG_LEVEL: 'warn',
    N8N_DIAGNOSTICS_ENABLED: 'false',
    N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
    N8N_TEMPLATES_ENABLED: 'false',
    N8N_PERSONALIZATION_ENABLED: 'false',
    N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
    N8N_SECURE_COOKIE: 'false',
    // The drain check counts executions; pruning would delete some meanwhile.
    EXECUTIONS_DATA_PRUNE: 'false',
  };
  const id = 'benchWebhook0001';
  const path = 'bench';
  const workflow = {
    id,
    name: 'Bench webhook',
    active: false,
    settings: { executionOrder: 'v1' },
    nodes: [
      {
        id: randomUUID(),
        name: 'Webhook',
        type: 'n8n-nodes-base.webhook',
        typeVersion: 2,
        position: [0, 0],
        webhookId: randomUUID(),
        parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
      },
      { id: randomUUID(), name: 'No Operation, do nothing', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [220, 0], parameters: {} },
    ],
    connections: { Webhook: { main: [[{ node: 'No Operation, do nothing', type: 'main', index: 0 }]] } },
  };
  const file = join(folder, 'workflow.json');
  writeFileSync(file, JSON.stringify([workflow]));
  const cli = (args: string[]) =>
    new Promise<void>((done, fail) => {
      const child = spawn(process.execPath, [bin, ...args], { env, cwd: folder });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.stderr.on('data', (c: Buffer) => (out += c.toString()));
      child.on('close', (code) => (code === 0 ? done() : fail(new Error(`n8n ${args.join(' ')} exited ${code}: ${out}`))));
    });
  options.log('n8n: importing the workflow (the first run creates its SQLite database)');
  await cli(['import:workflow', `--input=${file}`]);
  await cli(['update:workflow', `--id=${id}`, '--active=true']);
  options.log('n8n: starting');
  const child = spawn(process.execPath, [bin, 'start'], { env, cwd: folder, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  child.stderr.on('data', (c: Buffer) => (output = (output + c.toString()).slice(-4000)));
  const url = `http://127.0.0.1:${port}/webhook/${path}`;
  const until = Date.now() + 180_000;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`n8n exited ${child.exitCode}: ${output}`);
    if (Date.now() > until) throw new Error(`n8n did not answer its webhook in time: ${output}`);
    try {
      const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY });
      await response.arrayBuffer();
      if (response.ok) break;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 500));
  }
  return { url, child, folder, database: join(folder, '.n8n', 'database.sqlite') };
}

/** Our service with a sequence without actions: the catch URL and the workflow's record. */
async function startOurs(): Promise<{ url: string; child: ChildProcess; dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-peers-'));
  const env = childEnv({ DATA_DIR: dataDir, LOG_LEVEL: 'warn', PORT: '0', HOST: '127.0.0.1', CATCH_RATE_LIMIT_MAX: '100000000' });
  const org = JSON.parse(await run(['bin/commerce.js', 'org', 'create', '--name', 'Bench', '--json'], env)) as { id: string };
  const file = join(dataDir, 'bench-sequence.json');
  writeFileSync(file, JSON.stringify({ sequences: [{ key: 'bench', name: 'Bench', status: 'active', actions: [], triggers: [{ key: 'bench', name: 'Bench', enabled: true }] }] }));
  const imported = JSON.parse(await run(['bin/commerce.js', 'import', file, '--org', org.id, '--json'], env)) as {
    sections: { sequences: Array<{ triggers: Array<{ catch_path: string }> }> };
  };
  const served = await serve(['bin/commerce.js', 'serve'], env);
  return { url: `${served.url}${imported.sections.sequences[0]!.triggers[0]!.catch_path}`, child: served.child, dataDir };
}

const { values } = parseArgs({
  options: {
    n8n: { type: 'string' },
    duration: { type: 'string', default: '5' },
    rounds: { type: 'string', default: '3' },
    connections: { type: 'string', default: '50' },
    warmup: { type: 'string', default: '2' },
    'sqlite-pool-size': { type: 'string' },
  },
});
if (!values.n8n) {
  console.error('usage: node bin/run-ts.js bench/peers/n8n.ts --n8n DIR [--duration 5] [--rounds 3] [--connections 50] [--sqlite-pool-size N]');
  process.exit(2);
}
const duration = Number(values.duration);
const rounds = Number(values.rounds);
const connections = Number(values.connections);
const warmup = Number(values.warmup);
const log = (line: string) => console.log(line);
const children: ChildProcess[] = [];
const dirs: string[] = [];
try {
  const ours = await startOurs();
  children.push(ours.child);
  dirs.push(ours.dataDir);
  const n8n = await startN8n(resolve(values.n8n), { poolSize: values['sqlite-pool-size'] ? Number(values['sqlite-pool-size']) : null, log });
  children.push(n8n.child);
  dirs.push(n8n.folder);
  const database = join(ours.dataDir, 'commerce.db');
  const loadOurs = (seconds: number) => loadRound(ours.url, ours.child.pid!, connections, seconds, () => untilDrained(database).then(() => undefined));
  // The readiness probe started one execution.
  let n8nAccepted = 1;
  const loadN8n = (seconds: number) =>
    loadRound(n8n.url, n8n.child.pid!, connections, seconds, (accepted) => untilExecuted(n8n.database, (n8nAccepted += accepted)));
  log(`${connections} connections, ${warmup}s warm-up, ${rounds} × ${duration}s per side, alternating; loopback only`);
  await loadOurs(warmup);
  await loadN8n(warmup);
  const results: { ours: Round[]; n8n: Round[] } = { ours: [], n8n: [] };
  for (let round = 0; round < rounds; round++) {
    const oursFirst = round % 2 === 0;
    const a = oursFirst ? await loadOurs(duration) : null;
    const b = await loadN8n(duration);
    const o = a ?? (await loadOurs(duration));
    results.ours.push(o);
    results.n8n.push(b);
    log(`round ${round + 1}: ours ${o.acceptedPerSecond.toFixed(0)}/s (p99 ${o.p99} ms), n8n ${b.acceptedPerSecond.toFixed(1)}/s (p99 ${b.p99} ms), ${(o.acceptedPerSecond / b.acceptedPerSecond).toFixed(1)}×`);
  }
  const row = (name: string, rs: Round[]) => {
    const cpu = rs.map((r) => r.cpuMsPer1000).filter((v): v is number => v !== null);
    return `| ${name} | ${median(rs.map((r) => r.acceptedPerSecond)).toFixed(1)} | ${median(rs.map((r) => r.p50))} | ${median(rs.map((r) => r.p99))} | ${cpu.length > 0 ? median(cpu).toFixed(0) : 'n/a'} | ${rs.reduce((n, r) => n + r.rejected, 0)} |`;
  };
  const ratios = results.ours.map((o, i) => o.acceptedPerSecond / results.n8n[i]!.acceptedPerSecond);
  log('');
  log(`Medians of ${rounds} round(s), Node ${process.version}${values['sqlite-pool-size'] ? `, n8n DB_SQLITE_POOL_SIZE=${values['sqlite-pool-size']}` : ''}:`);
  log('');
  log('| server | accepted webhooks/s | p50 ms | p99 ms | CPU ms per 1,000 webhooks | not accepted |');
  log('|---|---:|---:|---:|---:|---:|');
  log(row('commerce catch URL (answers after the fsync)', results.ours));
  log(row('n8n 1.123.50 Webhook → No Operation (answers on receipt)', results.n8n));
  log('');
  log(`ours / n8n, median of the rounds' ratios: ${median(ratios).toFixed(1)}×`);
} finally {
  await stopAll(children);
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}
