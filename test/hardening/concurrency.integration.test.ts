import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StoreUnavailableError, type EventMetadata, type EventStore } from '../../platform/eventStore/eventStore.ts';
import { handleCommand, type CommandContext } from '../../platform/es/handleCommand.ts';
import { allocateId } from '../../platform/es/idAllocator.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { Decider, DomainEvent } from '../../platform/domain/decider.ts';
import { DomainError } from '../../platform/domain/domainError.ts';
import { makeOffer } from '../checkout/checkoutFixtures.ts';
import { holdWriteLock } from '../helpers/sqliteStores.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/**
 * A running total whose every event records the total it was decided on. If any decision were
 * made on a stale state (a lost update), some event's `before` would not match the sum of the
 * events ahead of it.
 */
type Added = DomainEvent<'Added', { n: number; before: number }>;
const counter: Decider<{ total: number }, { n: number }, Added> = {
  initialState: () => ({ total: 0 }),
  evolve: (state, event) => ({ total: state.total + event.data.n }),
  decide: (command, state) => ({ type: 'Added', data: { n: command.n, before: state.total } }),
};

const metadata = (i: number): EventMetadata => ({
  correlation_id: `concurrency-${i}`,
  actor: { type: 'system', name: 'test' },
  organization_id: null,
  occurred_at: 1_800_000_000,
});

describe('concurrent commands on one stream (real SQLite, two connections as two processes)', () => {
  let dir: string;
  let stores: EventStore[];
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'commerce-concurrency-'));
    const file = join(dir, 'commerce.db');
    stores = [openSqliteEventStore({ file }), openSqliteEventStore({ file })];
  });
  afterAll(async () => {
    for (const s of stores) await s.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const ctx = (i: number): CommandContext => ({ store: stores[i % 2]!, metadata: metadata(i) });

  it('loses no update: each success is in the stream once, decided on the state that preceded it; the rest answer conflict', async () => {
    const stream = 'counter_test-1';
    const outcomes = await Promise.allSettled(
      Array.from({ length: 60 }, (_, i) => handleCommand(ctx(i), stream, counter, { n: i + 1 })),
    );
    const ok = outcomes.filter((o) => o.status === 'fulfilled');
    const failed = outcomes.filter((o): o is PromiseRejectedResult => o.status === 'rejected');
    for (const f of failed) {
      expect(f.reason).toBeInstanceOf(DomainError);
      expect((f.reason as DomainError).kind).toBe('conflict');
    }
    const events = await stores[0]!.readStream(stream);
    expect(events.length).toBe(ok.length);
    expect(ok.length).toBeGreaterThan(0);
    let total = 0;
    events.forEach((e, i) => {
      expect(e.revision).toBe(i);
      const data = e.data as Added['data'];
      expect(data.before).toBe(total);
      total += data.n;
    });
    // Each successful command's event is there exactly once (its correlation id).
    const correlations = events.map((e) => e.metadata.correlation_id);
    expect(new Set(correlations).size).toBe(correlations.length);
    const succeeded = outcomes.flatMap((o, i) => (o.status === 'fulfilled' ? [`concurrency-${i}`] : []));
    expect(correlations.sort()).toEqual(succeeded.sort());
  });

  it('in one process, concurrent commands on one stream take turns: every one succeeds, none decided on a stale state', async () => {
    const stream = 'counter_test-turns';
    const results = await Promise.all(Array.from({ length: 60 }, (_, i) => handleCommand({ store: stores[0]!, metadata: metadata(i) }, stream, counter, { n: i + 1 })));
    expect(results.map((r) => r.revision)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    const events = await stores[0]!.readStream(stream);
    let total = 0;
    for (const e of events) {
      expect((e.data as Added['data']).before).toBe(total);
      total += (e.data as Added['data']).n;
    }
    expect(total).toBe((60 * 61) / 2);
  });

  it('decides on the whole stream when another process appended since this one last commanded it', async () => {
    // Each store remembers the state it left a long stream in; the other's appends must still count.
    const stream = 'counter_test-alternating';
    for (let i = 0; i < 40; i++) await handleCommand(ctx(i % 3 === 2 ? 1 : 0), stream, counter, { n: i + 1 });
    const events = await stores[1]!.readStream(stream);
    let total = 0;
    for (const e of events) {
      expect((e.data as Added['data']).before).toBe(total);
      total += (e.data as Added['data']).n;
    }
    expect(events).toHaveLength(40);
    expect(total).toBe((40 * 41) / 2);
  });

  it('hands out distinct ids 1..N to concurrent allocations from both connections', async () => {
    const ids = await Promise.all(Array.from({ length: 200 }, (_, i) => allocateId(stores[i % 2]!, 'concurrency_test', metadata(i))));
    expect([...ids].sort((x, y) => x - y)).toEqual(Array.from({ length: 200 }, (_, i) => i + 1));
  });

  it('creates one user for one email however many create it at once', async () => {
    const org = await createOrganization(ctx(0), { name: 'Race', timezone: 'UTC' });
    const results = await Promise.all(
      Array.from({ length: 30 }, (_, i) => createUser(ctx(i), { email: 'Race@Example.com', organizationId: org.id }).catch((e: unknown) => e)),
    );
    const users = results.filter((r): r is { id: string; created: boolean } => !(r instanceof Error));
    expect(new Set(users.map((u) => u.id)).size).toBe(1);
    expect(users.filter((u) => u.created).length).toBe(1);
    const created = await stores[0]!.readStream(`user-${users[0]!.id}`);
    expect(created.filter((e) => e.type === 'UserCreated')).toHaveLength(1);
  });
});

describe('concurrent requests over HTTP on one resource', () => {
  let server: TestServer;
  let offerSlug: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '1000000' } });
    const { organizationId } = await server.identity('Concurrent Org');
    offerSlug = (await makeOffer(server, organizationId)).slug;
  });
  afterAll(() => server.close({ remove: true }));

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    server.fetch(path, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });

  it('creates one session for 20 concurrent creations with one Idempotency-Key', async () => {
    const responses = await Promise.all(Array.from({ length: 20 }, () => post('/api/checkout/sessions', { offer: offerSlug }, { 'idempotency-key': 'concurrent-key-1' })));
    const bodies = await Promise.all(responses.map(async (r) => ({ status: r.status, body: (await r.json()) as { session?: { id: string } } })));
    expect(bodies.every((b) => b.status === 201), JSON.stringify(bodies.filter((b) => b.status !== 201).slice(0, 2))).toBe(true);
    const ids = new Set(bodies.map((b) => b.body.session!.id));
    expect(ids.size).toBe(1);
    const log = await server.services.store.readAll({ after: null, limit: 100_000 });
    expect(log.filter((e) => e.type === 'CheckoutSessionCreated' && e.stream.endsWith([...ids][0]!))).toHaveLength(1);
  });

  it('charges a session once when 10 pay requests race', async () => {
    const created = (await (await post('/api/checkout/sessions', { offer: offerSlug })).json()) as { session: { id: string } };
    const id = created.session.id;
    const card = { number: '4242424242424242', exp_month: 12, exp_year: 2099, cvc: '123' };
    const responses = await Promise.all(Array.from({ length: 10 }, () => post(`/api/checkout/sessions/${id}/pay`, { card })));
    const statuses = responses.map((r) => r.status);
    for (const r of responses) await r.arrayBuffer();
    expect(statuses.filter((s) => s === 200).length, `statuses ${statuses.join(',')}`).toBeGreaterThanOrEqual(1);
    for (const s of statuses) expect([200, 409, 410, 422]).toContain(s);
    const log = await server.services.store.readAll({ after: null, limit: 100_000 });
    const mine = log.filter((e) => e.stream.endsWith(id) || (e.type === 'InvoicePaid' && log.some((x) => x.type === 'CheckoutSessionStarted' && x.stream.endsWith(id) && e.stream.endsWith((x.data as { invoice_id: string }).invoice_id))));
    expect(mine.filter((e) => e.type === 'CheckoutSessionCompleted')).toHaveLength(1);
    expect(mine.filter((e) => e.type === 'InvoicePaid')).toHaveLength(1);
    await server.settle();
    const read = (await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as { session: { status: string; invoice: { status: string } } };
    expect(read.session.status).toBe('completed');
    expect(read.session.invoice.status).toBe('paid');
  });
});

describe('another process holding the data file locked past the wait', () => {
  let server: TestServer;
  let offerSlug: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '1000000', SQLITE_BUSY_TIMEOUT_MS: '100' } });
    const { organizationId } = await server.identity('Locked Org');
    offerSlug = (await makeOffer(server, organizationId)).slug;
  });
  afterAll(() => server.close({ remove: true }));

  it('an append fails with StoreUnavailableError, writes nothing, and goes through once the lock is gone', async () => {
    const head = await server.services.store.headPosition();
    const release = holdWriteLock(join(server.dataDir, 'commerce.db'));
    try {
      await expect(handleCommand({ store: server.services.store, metadata: metadata(1) }, 'counter_test-locked', counter, { n: 1 })).rejects.toBeInstanceOf(StoreUnavailableError);
      expect(await server.services.store.headPosition()).toBe(head);
    } finally {
      release();
    }
    const done = await handleCommand({ store: server.services.store, metadata: metadata(2) }, 'counter_test-locked', counter, { n: 1 });
    expect(done.revision).toBe(0);
  });

  it('a request then answers 503 with Retry-After (not 500), and the same request succeeds afterwards', async () => {
    const create = () =>
      server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'locked-1' }, body: JSON.stringify({ offer: offerSlug }) });
    const release = holdWriteLock(join(server.dataDir, 'commerce.db'));
    let busy: Response;
    try {
      busy = await create();
    } finally {
      release();
    }
    expect(busy.status).toBe(503);
    expect(busy.headers.get('retry-after')).toBe('1');
    expect(await busy.json()).toEqual({ message: 'The service is busy. Try again shortly.', code: 'service_unavailable' });
    const retried = await create();
    expect(retried.status).toBe(201);
  });
});
