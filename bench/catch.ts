/**
 * Accepted webhooks per second on a catch URL (each one durably recorded: WebhookReceived and
 * WorkflowStarted fsynced, the automation subscriber running beside it) against a bare fastify
 * route that parses the same JSON and answers. One run of each; prints both and the ratio.
 *
 *   node bin/run-ts.js bench/catch.ts [--duration 3] [--connections 50]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import autocannon from 'autocannon';
import { startInProcessService } from './inProcessService.ts';
import Fastify from 'fastify';
import { createSequence, createTrigger } from '../commands/automation/automationCommands.ts';
import { createOrganization } from '../commands/identity/identityCommands.ts';

export type BenchResult = { name: string; ours: number; reference: number; ratio: number; unit: string };

const BODY = JSON.stringify({ email: 'buyer@example.com', ref: 'ORD-1042', source: 'crm', items: [{ sku: 'A', qty: 2 }] });

async function load(url: string, duration: number, connections: number): Promise<{ rps: number; non2xx: number }> {
  const result = await autocannon({ url, method: 'POST', headers: { 'content-type': 'application/json' }, body: BODY, duration, connections });
  return { rps: result.requests.average, non2xx: result.non2xx + result.errors };
}

export async function runCatchBench(opts: { duration?: number; connections?: number } = {}): Promise<BenchResult> {
  const duration = opts.duration ?? 3;
  const connections = opts.connections ?? 50;

  const reference = Fastify({ logger: false });
  reference.post('/hooks/catch/:sequence/:trigger', async (request) => {
    const body = request.body as Record<string, unknown>;
    return { success: true, message: 'Workflow started', workflow_id: typeof body.email === 'string' ? 1 : 0 };
  });
  await reference.listen({ port: 0, host: '127.0.0.1' });
  const refAddress = reference.server.address() as { port: number };
  const ref = await load(`http://127.0.0.1:${refAddress.port}/hooks/catch/a/b`, duration, connections);
  await reference.close();

  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-'));
  const service = await startInProcessService({ DATA_DIR: dataDir, CATCH_RATE_LIMIT_MAX: '100000000' });
  const { ctx } = service;
  const org = await createOrganization(ctx, { name: 'Bench', timezone: 'UTC' });
  const sequence = await createSequence(ctx, { organizationId: org.id, name: 'Bench', actions: [] });
  const trigger = await createTrigger(ctx, { organizationId: org.id, sequenceId: sequence.id, name: 'Bench' });
  const ours = await load(`${service.url}/hooks/catch/${sequence.route_key}/${trigger.route_key}`, duration, connections);
  await service.close();
  rmSync(dataDir, { recursive: true, force: true });
  if (ours.non2xx > 0) console.error(`catch bench: ${ours.non2xx} non-2xx answers or errors`);

  return { name: 'catch webhooks accepted (durable) vs bare fastify JSON route', ours: ours.rps, reference: ref.rps, ratio: ours.rps / ref.rps, unit: 'req/s' };
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const { values } = parseArgs({ options: { duration: { type: 'string' }, connections: { type: 'string' } } });
  const result = await runCatchBench({
    ...(values.duration ? { duration: Number(values.duration) } : {}),
    ...(values.connections ? { connections: Number(values.connections) } : {}),
  });
  console.log(`${result.name}: ours ${result.ours.toFixed(0)} ${result.unit}, reference ${result.reference.toFixed(0)} ${result.unit}, ratio ${result.ratio.toFixed(3)}`);
  console.log(JSON.stringify(result));
}
