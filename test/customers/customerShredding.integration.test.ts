import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startBackgroundJobs } from '../../app/backgroundJobs.ts';
import { compose, openSealedEventStoreAt } from '../../app/compose.ts';
import { copyEvents } from '../../platform/eventStore/copyEvents.ts';
import { buildApp } from '../../app/httpApp.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { refundInvoice } from '../../modules/payments/index.ts';
import { createPromo, enrolParticipant } from '../../modules/promos/index.ts';
import { receiptOutboxJob } from '../../modules/receipts/jobs/receiptOutbox.ts';
import { webhooksJob } from '../../modules/webhooks/jobs/webhookJob.ts';
import { subscriptionCreationJob } from '../../modules/subscriptions/jobs/subscriptionCreation.ts';
import { invoiceMirrorJob } from '../../modules/subscriptions/jobs/invoiceMirror.ts';
import { GOOD_CARD } from '../checkout/checkoutFixtures.ts';
import { clockApp, waitFor, type ClockApp } from '../subscriptions/clockApp.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const silent = { error: (o: unknown, m: string) => console.error(m, o), info: () => undefined };

/** The files SQLite keeps the data in: the database, its write-ahead log and the log's index. */
function databaseBytes(dataDir: string): Buffer {
  const file = join(dataDir, 'commerce.db');
  return Buffer.concat([file, `${file}-wal`, `${file}-shm`].filter((f) => existsSync(f)).map((f) => readFileSync(f)));
}

/** The tables and row ids whose columns name any of the texts, whatever their case. */
function rowsNaming(dataDir: string, texts: string[]): string[] {
  const db = new Database(join(dataDir, 'commerce.db'), { readonly: true });
  try {
    const found: string[] = [];
    for (const { name } of db.prepare<[], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'table'").all()) {
      for (const row of db.prepare<[], Record<string, unknown>>(`SELECT rowid AS _rowid, * FROM "${name}"`).all()) {
        const text = JSON.stringify(row).toLowerCase();
        if (texts.some((t) => text.includes(t.toLowerCase()))) found.push(`${name}:${String(row._rowid)}`);
      }
    }
    return found;
  } finally {
    db.close();
  }
}

const holds = (bytes: Buffer, text: string) => bytes.includes(Buffer.from(text, 'utf8'));

describe('crypto-shredding on erasure', () => {
  let harness: ClockApp;
  let seller: { organizationId: string; token: string };

  beforeAll(async () => {
    harness = await clockApp();
    seller = await harness.identity();
    await harness.offerOf(seller.organizationId, 'lifetime', 'one_time');
    await harness.offerOf(seller.organizationId, 'monthly', 'recurring');
  });
  afterAll(async () => harness.close());

  const buy = async (offer: string, buyer: { email: string; name?: string }) => {
    const created = await harness.call('POST', '/api/checkout/sessions', { token: seller.token, body: { offer, customer: { email: buyer.email } } });
    expect(created.status).toBe(201);
    const paid = await harness.call('POST', `/api/checkout/sessions/${created.body.session.id}/pay`, { body: { ...buyer, card: GOOD_CARD } });
    expect(paid.status).toBe(200);
    return paid.body as Body;
  };
  const get = (url: string) => harness.call('GET', url, { token: seller.token });

  it('leaves no byte of the email or name in the SQLite files, and keeps totals and invoice numbers', async () => {
    const email = 'shred.me.please@example.com';
    const name = 'Zebulon Shreddington';
    const keeper = 'stays.readable@example.com';
    const jobs = await startBackgroundJobs(harness.services, silent, [subscriptionCreationJob, invoiceMirrorJob, receiptOutboxJob, webhooksJob]);
    try {
      // Deliveries are recorded whether or not the endpoint answers: their payloads name the buyer.
      const endpoint = await harness.call('POST', '/api/webhook-endpoints', {
        token: seller.token,
        body: { url: 'https://hooks.example.com/in', event_types: ['checkout.session.completed', 'invoice.paid', 'customer.subscription.created'] },
      });
      expect(endpoint.status).toBe(201);
      const first = await buy('lifetime', { email, name });
      const second = await buy('monthly', { email: email.toUpperCase(), name });
      await buy('lifetime', { email: keeper, name: 'Kept Person' });
      // A refund's credit note and a promo enrolment copy the buyer too.
      await refundInvoice(harness.ctx(seller.organizationId), harness.services, seller.organizationId, first.invoice.id, 900);
      const now = Math.floor(harness.services.clock() / 1000);
      const ctx = harness.ctx(seller.organizationId);
      const promoSlug = `shred-${seller.organizationId.replace(/[^a-z0-9]/g, '').toLowerCase()}`;
      await createPromo(ctx, { organizationId: seller.organizationId, slug: promoSlug, name: 'Launch', startsAt: now - 10, endsAt: now + 10_000, tiers: [{ name: 'Launch', price: null, discount_percent: 20, until: null, max_participants: null }] });
      await enrolParticipant(harness.ctx(seller.organizationId), { organizationId: seller.organizationId, slug: promoSlug, email, reference: null, workflowId: null });
      const subscriptionId = second.session.subscription.id as string;
      await waitFor('the subscription', () => get(`/api/subscriptions/${subscriptionId}`), (r) => r.status === 200);
      await harness.settle();
      const customerId = (await get(`/api/invoices/${first.invoice.id}`)).body.customer_id as string;
      const numbers = [(await get(`/api/invoices/${first.invoice.id}`)).body.number, (await get(`/api/invoices/${second.invoice.id}`)).body.number];
      // The read models hold them until the erasure: the scan sees what is there.
      expect(holds(databaseBytes(harness.dataDir), email)).toBe(true);

      const redacted = await harness.call('POST', `/api/customers/${customerId}/redact`, { token: seller.token });
      expect(redacted.status).toBe(200);
      await harness.settle();

      const bytes = databaseBytes(harness.dataDir);
      // Where a row still names them, for a readable failure; then the bytes, free pages and WAL included.
      expect(rowsNaming(harness.dataDir, [email, name])).toEqual([]);
      for (const text of [email, email.toUpperCase(), name]) expect(holds(bytes, text), text).toBe(false);
      // Another buyer's data is theirs still.
      expect(holds(bytes, keeper)).toBe(true);

      const customer = await get(`/api/customers/${customerId}`);
      expect(customer.body).toMatchObject({ redacted: true, email: `redacted+${customerId}@invalid`, purchases_count: 2, total_spent: { EUR: 6800 }, total_refunded: { EUR: 900 } });
      const notes = await get(`/api/credit_notes?invoice=${first.invoice.id}`);
      expect(notes.body.data).toMatchObject([{ amount: 900, customer: { email: `redacted+${customerId}@invalid`, name: null } }]);
      expect([(await get(`/api/invoices/${first.invoice.id}`)).body.number, (await get(`/api/invoices/${second.invoice.id}`)).body.number]).toEqual(numbers);
      // The log itself reads as erased: the session's first event names the placeholder.
      const events = await harness.services.store.readStream(`checkout_session-${first.session.id}`);
      expect((events[0]!.data as Body).customer).toEqual({ email: `redacted+${customerId}@invalid`, name: null, user_id: null });
    } finally {
      await jobs.stop();
    }
  });

  it('copies the log to another data directory re-sealed with its keys, the erased person as the placeholder', async () => {
    const kept = await buy('lifetime', { email: 'copied.kept@example.com', name: 'Kept Copy' });
    const erased = await buy('lifetime', { email: 'copied.erased@example.com', name: 'Erased Copy' });
    await harness.settle();
    const erasedId = (await get(`/api/invoices/${erased.invoice.id}`)).body.customer_id as string;
    expect((await harness.call('POST', `/api/customers/${erasedId}/redact`, { token: seller.token })).status).toBe(200);

    const target = mkdtempSync(join(tmpdir(), 'commerce-copy-'));
    try {
      const mongo = { url: undefined, db: 'commerce' };
      const [source, copy] = [await openSealedEventStoreAt(harness.dataDir, mongo), await openSealedEventStoreAt(target, mongo)];
      try {
        await copyEvents(source, copy);
        const first = async (store: typeof copy, id: string) => ((await store.readStream(`checkout_session-${id}`))[0]!.data as Body).customer;
        expect(await first(copy, kept.session.id)).toEqual({ email: 'copied.kept@example.com', name: null, user_id: null });
        expect(await first(copy, erased.session.id)).toEqual({ email: `redacted+${erasedId}@invalid`, name: null, user_id: null });
      } finally {
        await source.close();
        await copy.close();
      }
      const bytes = databaseBytes(target);
      for (const text of ['copied.kept@example.com', 'copied.erased@example.com', 'Erased Copy']) expect(holds(bytes, text), text).toBe(false);
    } finally {
      rmSync(target, { recursive: true, force: true });
    }
  });

  it('answers 409 personal_data_unreadable, not a 500, for an altered sealed field', async () => {
    const bought = await buy('lifetime', { email: 'tamper@example.com', name: 'Tam Per' });
    await harness.settle();
    const customerId = (await get(`/api/invoices/${bought.invoice.id}`)).body.customer_id as string;
    expect((await get(`/api/customers/${customerId}/history`)).status).toBe(200);
    const db = new Database(join(harness.dataDir, 'commerce.db'));
    try {
      const row = db.prepare<[string], { position: number; data: string }>("SELECT position, data FROM events WHERE stream = ? AND type = 'CheckoutSessionCreated'").get(`checkout_session-${bought.session.id}`)!;
      const data = JSON.parse(row.data) as Body;
      const parts = (data.customer.email.$sealed as string).split('.');
      parts[3] = Buffer.from('someone-else@example.com').toString('base64url');
      data.customer.email.$sealed = parts.join('.');
      db.prepare('UPDATE events SET data = ? WHERE position = ?').run(JSON.stringify(data), row.position);
    } finally {
      db.close();
    }
    // Another process reads the file (this one keeps its recent appends in memory).
    const services = await compose(loadConfig({ DATA_DIR: harness.dataDir, LOG_LEVEL: 'silent' }), { runProjections: false, logger: silent });
    const app = await buildApp(services);
    try {
      const history = await app.inject({ method: 'GET', url: `/api/customers/${customerId}/history`, headers: { accept: 'application/json', authorization: `Bearer ${seller.token}` } });
      expect(history.statusCode).toBe(409);
      expect(JSON.parse(history.body)).toEqual({ message: expect.stringContaining('cannot be read'), code: 'personal_data_unreadable' });
    } finally {
      await app.close();
      await services.close();
    }
  });
});
