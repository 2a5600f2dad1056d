import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { createOrganization } from '../../modules/identity/identityCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { GOOD_CARD, json, makeOffer, offerContent } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('fifty concurrent payments of one session', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('give exactly one paid invoice and one purchase', async () => {
    const org = await server.identity();
    const offer = await makeOffer(server, org.organizationId);
    const created = (await (await server.fetch('/api/checkout/sessions', json({ offer: offer.slug }))).json()) as Body;
    const id = created.session.id as string;

    const responses = await Promise.all(
      Array.from({ length: 50 }, async () => {
        const response = await server.fetch(`/api/checkout/sessions/${id}/pay`, json({ card: GOOD_CARD }));
        return { status: response.status, body: (await response.json()) as Body };
      }),
    );
    const ok = responses.filter((r) => r.status === 200);
    expect(ok).toHaveLength(1);
    for (const r of responses.filter((x) => x.status !== 200)) {
      expect(r.status).toBe(409);
      expect(['payment_in_progress', 'session_completed']).toContain(r.body.code);
    }
    const events = await server.services.store.readAll({ after: null, limit: 1_000_000 });
    const invoiceId = ok[0]!.body.invoice.id as string;
    expect(events.filter((e) => e.type === 'InvoiceCreated' && (e.data as Body).session_id === id)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'InvoicePaid' && e.stream === `invoice-${invoiceId}`)).toHaveLength(1);
    expect(events.filter((e) => e.type === 'CheckoutSessionCompleted' && e.stream === `checkout_session-${id}`)).toHaveLength(1);
  });
});

/** The real program (`commerce serve`) with a trace-level log, so the log is what production writes. */
describe('card numbers are never stored or logged', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-cards-'));
  let child: ChildProcess;
  let url = '';
  let log = '';
  let ctx: CommandContext;
  let services: Awaited<ReturnType<typeof compose>>;

  beforeAll(async () => {
    const env = { ...process.env, DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', BASE_URL: '', LOG_LEVEL: 'trace', CHECKOUT_RATE_LIMIT: '1000' };
    child = spawn(process.execPath, [resolve('bin/commerce.js'), 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout!.on('data', (d: Buffer) => (log += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (log += d.toString()));
    const deadline = Date.now() + 30_000;
    while (!/listening on (http:\/\/\S+)/.test(log)) {
      if (Date.now() > deadline) throw new Error(`server did not start: ${log}`);
      await new Promise((r) => setTimeout(r, 50));
    }
    url = /listening on (http:\/\/\S+)/.exec(log)![1]!;
    services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), {
      runProjections: false,
      logger: { error: () => undefined, info: () => undefined },
    });
    ctx = { store: services.store, metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: null, occurred_at: Math.floor(Date.now() / 1000) } };
  });
  afterAll(async () => {
    await services?.close();
    if (child && child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('keeps only brand and last four digits', async () => {
    const org = await createOrganization(ctx, { name: 'Cards', timezone: 'UTC' });
    const offer = await upsertOffer(ctx, { organizationId: org.id, slug: 'card-test', ...offerContent() });
    await publishOffer(ctx, offer.uuid);
    // The server's projections pick up what another process appended.
    let ready = false;
    for (let i = 0; i < 100 && !ready; i++) {
      ready = (await fetch(`${url}/api/checkout?offer=card-test`)).status === 200;
      if (!ready) await new Promise((r) => setTimeout(r, 100));
    }
    expect(ready).toBe(true);

    const numbers = ['4242424242424242', '4000000000000002', '4000000000009995', '4242424242424241'];
    for (const number of numbers) {
      const created = (await (await fetch(`${url}/api/checkout/sessions`, json({ offer: 'card-test' }))).json()) as Body;
      const response = await fetch(`${url}/api/checkout/sessions/${created.session.id}/pay`, json({ card: { ...GOOD_CARD, number } }));
      expect([200, 402]).toContain(response.status);
      const body = await response.text();
      expect(body).not.toContain(number);
    }
    // A validation failure must not echo the number either.
    const created = (await (await fetch(`${url}/api/checkout/sessions`, json({ offer: 'card-test' }))).json()) as Body;
    const invalid = await fetch(`${url}/api/checkout/sessions/${created.session.id}/pay`, json({ card: { ...GOOD_CARD, number: '4242424242424242', cvc: 'x' } }));
    expect(invalid.status).toBe(422);
    expect(await invalid.text()).not.toContain('4242424242424242');

    child.kill('SIGTERM');
    // 'close': its output is all read (at 'exit' the last of it may still be in the pipe).
    await new Promise((r) => child.once('close', r));
    const events = await services.store.readAll({ after: null, limit: 1_000_000 });
    const stored = JSON.stringify(events);
    expect(stored).toContain('"last4":"4242"');
    const files = readdirSync(dataDir).filter((f) => f.startsWith('commerce.db'));
    const raw = files.map((f) => readFileSync(join(dataDir, f)).toString('latin1')).join('');
    expect(log.length).toBeGreaterThan(0);
    expect(log).toContain('/pay');
    for (const number of numbers) {
      expect(stored).not.toContain(number);
      expect(raw).not.toContain(number);
      expect(log).not.toContain(number);
    }
  });
});
