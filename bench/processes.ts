/**
 * What the benchmarks that load a server in its own process share: starting `commerce` commands
 * and servers as children, reading a child's CPU time, the load itself and the median.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';

export const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What a benchmark of our service against its reference returns (bench/run.ts tabulates it). */
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

/** Our environment without the settings a benchmark sets for its children itself. */
export function childEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const { BASE_URL: _b, PORT: _p, DATA_DIR: _d, ...rest } = process.env;
  return { ...rest, ...extra };
}

/** Runs a command to its end and resolves with its standard output. */
export function run(args: string[], env: NodeJS.ProcessEnv, input = ''): Promise<string> {
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

/** Starts a server that prints `listening on http://…` and resolves with its address. */
export function serve(args: string[], env: NodeJS.ProcessEnv): Promise<{ url: string; child: ChildProcess }> {
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

/** Stops the servers (SIGTERM) and waits for them to exit. */
export async function stopAll(children: ChildProcess[]): Promise<void> {
  for (const child of children) {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc on Linux; null elsewhere. */
export function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return (Number(fields[11]) + Number(fields[12])) * (1000 / 100);
  } catch {
    return null;
  }
}

export type Load = { rps: number; cpuUsPerRequest: number | null };
export type LoadSpec = { url: string; connections: number; duration: number; method?: string; headers?: Record<string, string>; body?: string };

/** One autocannon load; any non-2xx answer or error fails the benchmark. `pid`: the server, for its CPU time. */
export async function load(spec: LoadSpec, pid?: number): Promise<Load> {
  const before = cpuMs(pid);
  const result = await autocannon({ ...spec, pipelining: 1 });
  const after = cpuMs(pid);
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${spec.url}: ${result.non2xx} non-2xx, ${result.errors} errors`);
  const served = result.requests.total ?? result.requests.average * spec.duration;
  return {
    rps: result.requests.average,
    cpuUsPerRequest: before === null || after === null || served === 0 ? null : ((after - before) * 1000) / served,
  };
}

export type BenchFlags = { duration?: number; rounds?: number; connections?: number };

/**
 * The flags a benchmark takes when run alone: --duration (seconds per round), --rounds,
 * --connections, and the on/off switches it names (`switches` holds those given).
 */
export function benchFlags(switchNames: readonly string[] = []): BenchFlags & { switches: ReadonlySet<string> } {
  const options = { duration: { type: 'string' }, rounds: { type: 'string' }, connections: { type: 'string' } } as const;
  const switchOptions = Object.fromEntries(switchNames.map((name) => [name, { type: 'boolean' as const }]));
  const values: Record<string, unknown> = parseArgs({ options: { ...options, ...switchOptions } }).values;
  const number = (value: unknown) => (typeof value === 'string' && value ? Number(value) : undefined);
  return {
    duration: number(values.duration),
    rounds: number(values.rounds),
    connections: number(values.connections),
    switches: new Set(switchNames.filter((name) => values[name] === true)),
  };
}

export const median = (xs: number[]): number => {
  const s = [...xs].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

export type Paired = { ours: number[]; reference: number[]; ratios: number[]; oursCpu: number[]; refCpu: number[] };

/**
 * Alternates which side goes first in each round, so drift in the machine's load hits both
 * alike; the ratio of a benchmark is the median of the rounds' paired ratios.
 */
export async function pairedRounds(
  rounds: number,
  loadOurs: () => Promise<Load>,
  loadReference: () => Promise<Load>,
  log: (line: string) => void,
  unit: string,
): Promise<Paired> {
  const out: Paired = { ours: [], reference: [], ratios: [], oursCpu: [], refCpu: [] };
  for (let round = 0; round < rounds; round++) {
    const oursFirst = round % 2 === 0;
    const a = oursFirst ? await loadOurs() : null;
    const r = await loadReference();
    const o = a ?? (await loadOurs());
    out.ours.push(o.rps);
    out.reference.push(r.rps);
    out.ratios.push(o.rps / r.rps);
    const cpu = o.cpuUsPerRequest !== null && r.cpuUsPerRequest !== null;
    if (cpu) {
      out.oursCpu.push(o.cpuUsPerRequest!);
      out.refCpu.push(r.cpuUsPerRequest!);
    }
    const cpuText = cpu ? `; server CPU ${o.cpuUsPerRequest!.toFixed(0)} vs ${r.cpuUsPerRequest!.toFixed(0)} µs/request` : '';
    log(`round ${round + 1}: ours ${o.rps.toFixed(0)} ${unit}, reference ${r.rps.toFixed(0)} ${unit}, ratio ${(o.rps / r.rps).toFixed(3)}${cpuText}`);
  }
  return out;
}

/** A benchmark's result from its paired rounds: the medians of each side and of the rounds' ratios. */
export function summarize(name: string, unit: string, paired: Paired): BenchResult {
  return {
    name,
    ours: Math.round(median(paired.ours)),
    reference: Math.round(median(paired.reference)),
    ratio: Number(median(paired.ratios).toFixed(3)),
    unit,
    ...(paired.oursCpu.length > 0
      ? { cpuUsPerRequest: { ours: Math.round(median(paired.oursCpu)), reference: Math.round(median(paired.refCpu)) } }
      : {}),
  };
}
