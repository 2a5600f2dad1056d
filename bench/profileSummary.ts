/**
 * Where a CPU profile's time went, by part of the service: each sample is charged to the first
 * frame, from the sampled one up through its callers, that belongs to a part (Node's own socket,
 * stream and event frames belong to none: a write is charged to whoever wrote). Idle time and the
 * profiler's own are left out. For the profiles `BENCH_PROFILE` makes (bench/webhookDelivery.ts).
 *
 *   node bin/run-ts.js bench/profileSummary.ts FILE.cpuprofile [--per 2000]
 *
 * `--per N` adds µs per item (the deliveries of the profiled round).
 */
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';

type CallFrame = { functionName: string; url: string };
type ProfileNode = { id: number; callFrame: CallFrame; children?: number[] };
export type CpuProfile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

/** The parts, in the order a frame is tested against them. */
const PARTS: ReadonlyArray<[part: string, frame: RegExp]> = [
  ['the receiver (the benchmark’s own HTTP server)', /node:_http_server|node:_http_incoming|node:_http_outgoing|node:_http_common|bench\/webhookDelivery\.ts/],
  ['the HTTP call, client side (undici, the guarded client)', /\/undici\/|platform\/outbound\//],
  ['signing (standardwebhooks)', /\/standardwebhooks\/|\/fast-sha256\/|\/@stablelib\//],
  ['building bodies (the session’s view and resource)', /webhooks\/eventObject\.ts|sessionView\.ts|sessionResource\.ts|checkout\/invoice\.ts/],
  ['sealing and opening personal data (platform/privacy)', /platform\/privacy\//],
  ['the event log (reads, appends, commits)', /\/eventStore\//],
  ['the read models (projections, read store)', /\/projections\/|\/readStore\//],
  ['the webhook job (planning, claims, order, records)', /\/webhooks\/|\/commands\/|\/domain\//],
];
const LEFT_OUT = new Set(['(idle)']);
const PROFILER = /node:inspector|startProfile|inspectorRecording/;

/** Milliseconds per part, and the total they add up to. */
export function summarize(profile: CpuProfile): { total: number; parts: Map<string, number> } {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const partOf = new Map<number, string | null>();
  const classify = (id: number): string | null => {
    const known = partOf.get(id);
    if (known !== undefined) return known;
    const node = byId.get(id)!;
    const name = node.callFrame.functionName;
    let part: string | null;
    if (LEFT_OUT.has(name) || PROFILER.test(node.callFrame.url) || PROFILER.test(name)) part = null;
    else if (name === '(garbage collector)') part = 'garbage collection (main thread)';
    else if (name === '(program)') part = 'V8 itself (compiling, its runtime)';
    else {
      part = PARTS.find(([, frame]) => frame.test(node.callFrame.url))?.[0] ?? '';
      if (part === '') {
        const up = parent.get(id);
        part = up === undefined ? 'other (Node internals, timers, microtasks)' : classify(up);
      }
    }
    partOf.set(id, part);
    return part;
  };
  const parts = new Map<string, number>();
  let total = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    const part = classify(profile.samples[i]!);
    if (part === null) continue;
    const ms = (profile.timeDeltas[i] ?? 0) / 1000;
    parts.set(part, (parts.get(part) ?? 0) + ms);
    total += ms;
  }
  return { total, parts };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const file = process.argv[2];
  if (!file) {
    console.error('usage: node bin/run-ts.js bench/profileSummary.ts FILE.cpuprofile [--per N]');
    process.exit(2);
  }
  const perAt = process.argv.indexOf('--per');
  const per = perAt > 0 ? Number(process.argv[perAt + 1]) : null;
  const { total, parts } = summarize(JSON.parse(readFileSync(file, 'utf8')) as CpuProfile);
  const rows = [...parts].sort((a, b) => b[1] - a[1]);
  console.log(`| part | ms | share |${per ? ' µs per item |' : ''}`);
  console.log(`|---|---:|---:|${per ? '---:|' : ''}`);
  for (const [part, ms] of rows) {
    console.log(`| ${part} | ${ms.toFixed(1)} | ${((100 * ms) / total).toFixed(0)} % |${per ? ` ${((1000 * ms) / per).toFixed(0)} |` : ''}`);
  }
  console.log(`| total (idle and the profiler left out) | ${total.toFixed(1)} | 100 % |${per ? ` ${((1000 * total) / per).toFixed(0)} |` : ''}`);
}
