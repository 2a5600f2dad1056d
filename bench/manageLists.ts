/**
 * The management list routes as the data grows: the first and the last page of the checkout
 * session list and a buyer-email search, over real HTTP with a session cookie, with 100,000
 * checkout sessions and 10,000 products against the same with 1,000 sessions (same run, same
 * machine). Each is a ratio large/small of requests per second: ≥ 0.5 means a page costs about
 * the same at any size (the list routes answer from indexed read models).
 *
 * The event-log view (GET /manage/api/events) is measured the same way, over as many log events
 * as sessions: a page filtered by type, and a page near the end of the log (`after`).
 *
 * The read-model documents are written straight into the read store (as the checkout, catalog and
 * event-log projections would), since what is measured is the reading; the events an event-log
 * page shows are appended to the log, where the page reads them.
 *
 *   node bin/run-ts.js bench/manageLists.ts [--duration 3] [--connections 10]
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildApp } from '../app/httpApp.ts';
import { compose } from '../app/compose.ts';
import { loadConfig } from '../platform/runtime/config.ts';
import { inviteUser } from '../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../modules/identity/identityCommands.ts';
import { CATALOG_PRODUCTS } from '../modules/catalog/catalogProjection.ts';
import { CHECKOUT_SESSIONS } from '../modules/checkout/checkoutProjection.ts';
import type { StreamAppend } from '../platform/eventStore/eventStore.ts';
import { EVENT_LOG, type EventLogDoc } from '../modules/reporting/eventLogProjection.ts';
import type { Doc, WriteOp } from '../platform/readStore/readStore.ts';
import { benchFlags, load } from './processes.ts';

const ORG = 'org_bench';
const SEED = 'bench_seed';

/** `buyers` distinct emails: 20 sessions each at any size, so a search answers the same 20 rows. */
function sessionDoc(i: number, buyers: number): Doc {
  const created = 1_700_000_000 + i;
  return {
    id: `cs_bench${i}`,
    organization_id: ORG,
    status: 'open',
    total: 1900,
    currency: 'EUR',
    mode: 'test',
    expires_at: created + 86_400,
    created_at: created,
    offer: { uuid: 'u', id: 'xY3kQ9', slug: 'bench-offer', name: 'Bench offer' },
    customer: { email: `buyer${i % buyers}@example.com`, name: null },
    metadata: {},
    promo: null,
    promo_tier: null,
    started_at: null,
    cancelled_at: null,
    completed_at: null,
    expired_at: null,
    payment: null,
    last_decline: null,
    invoice: null,
    open_until: created + 86_400,
    updated_at: created,
  };
}

function productDoc(i: number): Doc {
  return {
    id: `prod-${i}`, route_key: `rk${i}`, number: i + 1, organization_id: ORG, key: `p${i}`, name: `Product ${i}`, display_name: null,
    description: null, family: null, features: [], twins: [], status: 'active', version_number: 1, published_at: null, archived_at: null,
    created_at: 1_700_000_000, updated_at: 1_700_000_000,
  };
}

/**
 * One event of the organization's log, as the event_log projection indexes it, and the event it
 * points to (the page reads it from the log); one in ten a BenchPublished. Types no projection
 * applies, and no organization in the metadata, so the running projections leave them alone.
 */
function logEvent(i: number): { doc: EventLogDoc; event: StreamAppend } {
  const type = i % 10 === 0 ? 'BenchPublished' : 'BenchNoted';
  const stream = `bench_log-${i}`;
  const occurredAt = 1_700_000_000 + i;
  return {
    doc: { id: `ev-${i}`, organization_id: ORG, position: i + 1, stream, revision: 0, type, occurred_at: occurredAt },
    event: {
      stream,
      expected: 'no_stream',
      events: [{ id: randomUUID(), type, data: { i, note: 'an event of the bench organization' }, metadata: { correlation_id: 'bench', actor: { type: 'cli' }, organization_id: null, occurred_at: occurredAt } }],
    },
  };
}

type Server = { url: string; cookie: string; close(): Promise<void> };

async function startWith(sessions: number, products: number): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), 'commerce-bench-manage-'));
  const services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, logger: { error: () => undefined, info: () => undefined } });
  const app = await buildApp(services);
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
  const ctx = { store: services.store, metadata: { correlation_id: 'bench', actor: { type: 'cli' as const }, organization_id: ORG, occurred_at: Math.floor(Date.now() / 1000) } };
  await createOrganization(ctx, { id: ORG, name: 'Bench', timezone: 'UTC' });
  const user = await createUser(ctx, { email: 'bench@example.com', organizationId: ORG });
  const { token } = await inviteUser(ctx, user.id);
  const accepted = await fetch(`${url}/manage/api/invitations/accept`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ token, password: 'bench passphrase' }) });
  const cookie = /commerce_session=[^;]+/.exec(accepted.headers.get('set-cookie') ?? '')![0];
  let checkpoint: number | null = null;
  const write = async (ops: WriteOp[]) => {
    const next = (checkpoint ?? 0) + 1;
    await services.readStore.commit(SEED, ops, { expected: checkpoint, next });
    checkpoint = next;
  };
  for (let i = 0; i < sessions; i += 5000) {
    await write(Array.from({ length: Math.min(5000, sessions - i) }, (_, n) => ({ op: 'upsert' as const, collection: CHECKOUT_SESSIONS, doc: sessionDoc(i + n, sessions / 20) })));
  }
  // As many log events as sessions: the event-log view's pages at 1,000 and at 100,000.
  for (let i = 0; i < sessions; i += 5000) {
    const batch = Array.from({ length: Math.min(5000, sessions - i) }, (_, n) => logEvent(i + n));
    await services.store.appendMany(batch.map((b) => b.event));
    await write(batch.map(({ doc }) => ({ op: 'upsert' as const, collection: EVENT_LOG, doc })));
  }
  for (let i = 0; i < products; i += 5000) {
    await write(Array.from({ length: Math.min(5000, products - i) }, (_, n) => ({ op: 'upsert' as const, collection: CATALOG_PRODUCTS, doc: productDoc(i + n) })));
  }
  return {
    url,
    cookie,
    async close() {
      await app.close();
      await services.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export type Row = { figure: string; value: number; unit: string; ratio: string };

export async function runManageListsBench(opts: { duration?: number; connections?: number; log?: (line: string) => void } = {}): Promise<Row[]> {
  const duration = opts.duration ?? 3;
  const connections = opts.connections ?? 10;
  const log = opts.log ?? (() => undefined);
  const small = await startWith(1_000, 100);
  const large = await startWith(100_000, 10_000);
  try {
    const lastPage = (total: number) => Math.ceil(total / 25);
    const cases: Array<[string, (total: number) => string]> = [
      ['first page of the session list', () => '/manage/api/checkout/sessions'],
      ['last page of the session list', (total) => `/manage/api/checkout/sessions?page=${lastPage(total)}`],
      ['buyer-email search', () => '/manage/api/checkout/sessions?email=buyer42@example.com'],
      ['event-log page by type', () => '/manage/api/events?type=BenchPublished&limit=50'],
      ['event-log page near the end', (total) => `/manage/api/events?limit=50&after=${total - 100}`],
    ];
    const rows: Row[] = [];
    for (const [figure, path] of cases) {
      const rate = async (server: Server, total: number) =>
        (await load({ url: `${server.url}${path(total)}`, connections, duration, headers: { cookie: server.cookie, accept: 'application/json' } })).rps;
      await rate(small, 1_000);
      await rate(large, 100_000);
      const ofSmall = await rate(small, 1_000);
      const ofLarge = await rate(large, 100_000);
      log(`${figure}: ${ofLarge.toFixed(0)} req/s at 100,000 vs ${ofSmall.toFixed(0)} at 1,000`);
      rows.push({ figure: `${figure} at 100,000 ${figure.startsWith('event-log') ? 'log events' : 'sessions'} (vs 1,000)`, value: Math.round(ofLarge), unit: 'req/s', ratio: (ofLarge / ofSmall).toFixed(2) });
    }
    return rows;
  } finally {
    await small.close();
    await large.close();
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const rows = await runManageListsBench({ ...benchFlags(), log: (line) => console.log(line) });
  for (const r of rows) console.log(`${r.figure}: ${r.value} ${r.unit}, ratio ${r.ratio} (goal ≥ 0.5)`);
}
