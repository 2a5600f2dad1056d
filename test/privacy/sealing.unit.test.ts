import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { personalFields } from '../../app/personalFields.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import type { EventStore, NewEvent, RecordedEvent } from '../../platform/eventStore/eventStore.ts';
import { cachedVault, personalSubject, SealedDataError, sealPersonalData, type PersonalDataVault } from '../../platform/privacy/index.ts';
import { openEventData, sealEventData } from '../../platform/privacy/sealing.ts';
import { openSqlitePersonalDataVault } from '../../platform/privacy/sqlite/sqliteVault.ts';
import { tempSqliteFile } from '../contracts/storeFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const ORG = 'org_seal';
const ada = { email: 'Ada@Example.com', name: 'Ada Lovelace', user_id: null };
const bob = { email: 'bob@example.com', name: 'Bob', user_id: 'u_42' };

const created = (customer: unknown) => ({ id: 'cs_1', organization_id: ORG, total: 1900, currency: 'EUR', mode: 'test', customer });
const payload = (customer: unknown) =>
  JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { object: { id: 'in_1', number: 7, amount_paid: 1900, customer } } });

describe('sealing personal fields', () => {
  let dispose: () => Promise<void>;
  let vault: PersonalDataVault;
  beforeEach(() => {
    const temp = tempSqliteFile();
    dispose = temp.dispose;
    vault = cachedVault(openSqlitePersonalDataVault({ file: temp.file }));
  });
  afterEach(async () => {
    await vault.close();
    await dispose();
  });
  const seal = (type: string, data: unknown) => sealEventData(vault, personalFields, type, data, ORG);
  const open = (type: string, data: unknown) => openEventData(vault, personalFields, type, data);

  it('seals the fields the table names, leaves the rest and its input as they were, and opens them back', async () => {
    const data = created(ada);
    const sealed = (await seal('CheckoutSessionCreated', data)) as Body;
    expect(JSON.stringify(sealed)).not.toContain('Ada');
    expect(JSON.stringify(sealed).toLowerCase()).not.toContain('ada@example.com');
    expect(sealed).toMatchObject({ id: 'cs_1', total: 1900, customer: { email: { $sealed: expect.stringMatching(/^v1\./) }, name: { $sealed: expect.any(String) }, user_id: null } });
    expect(data.customer).toBe(ada);
    expect(await open('CheckoutSessionCreated', sealed)).toEqual(data);
    const notice = { notice: { to: ada.email, subject: 'Payment failed', text: 'Hello Ada' }, queued_at: 1 };
    expect(await open('NoticeQueued', await seal('NoticeQueued', notice))).toEqual(notice);
    // Types that name nobody, and a buyer with neither email nor user id, pass through as they are.
    const plain = { id: 'x', total: 1 };
    expect(await seal('InvoicePaid', plain)).toBe(plain);
    const nobody = created({ email: null, name: 'Nameless', user_id: null });
    expect(await seal('CheckoutSessionCreated', nobody)).toEqual(nobody);
  });

  it('keys a person by organization and normalized email: the same key whatever the case', async () => {
    const one = (await seal('CheckoutSessionCreated', created(ada))) as Body;
    const two = (await seal('InvoiceCreated', { customer: { ...ada, email: ' ada@example.COM ' } })) as Body;
    const keyOf = (v: { $sealed: string }) => v.$sealed.split('.')[1];
    expect(keyOf(two.customer.email)).toBe(keyOf(one.customer.email));
    const other = (await seal('CheckoutSessionCreated', created(bob))) as Body;
    expect(keyOf(other.customer.email)).not.toBe(keyOf(one.customer.email));
    expect(personalSubject(ORG, { email: 'ADA@example.com' })).toBe(personalSubject(ORG, { email: 'ada@example.com' }));
    expect(personalSubject(ORG, { email: 'ada@example.com' })).not.toBe(personalSubject('org_other', { email: 'ada@example.com' }));
  });

  it("opens a destroyed key's fields as the erasure's placeholder, and only that person's", async () => {
    const sealedAda = await seal('CheckoutSessionCreated', created(ada));
    const sealedBob = await seal('CheckoutSessionCreated', created(bob));
    const receipt = await seal('ReceiptQueued', { receipt: { invoice_id: 'in_1', total: 1900, buyer_email: ada.email, buyer_name: ada.name }, token: 't' });
    const notice = await seal('NoticeQueued', { notice: { kind: 'payment_failed', to: ada.email, subject: 'Payment failed', text: 'Hello Ada Lovelace', about: 'sub_1' }, queued_at: 1 });
    expect(await vault.destroy(ORG, personalSubject(ORG, { email: ada.email })!, 'cus_ada')).toBe(1);
    expect(await open('CheckoutSessionCreated', sealedAda)).toEqual(created({ email: 'redacted+cus_ada@invalid', name: null, user_id: null }));
    expect(await open('ReceiptQueued', receipt)).toMatchObject({ receipt: { total: 1900, buyer_email: 'redacted+cus_ada@invalid', buyer_name: null } });
    expect(await open('CheckoutSessionCreated', sealedBob)).toEqual(created(bob));
    expect(JSON.stringify(notice)).not.toMatch(/Lovelace|ada@/i);
    expect(await open('NoticeQueued', notice)).toEqual({
      notice: { kind: 'payment_failed', to: 'redacted+cus_ada@invalid', subject: 'Payment failed', text: 'This message was erased with its recipient’s personal data.', about: 'sub_1' },
      queued_at: 1,
    });
    // The placeholder the erasure records is nobody's data: not sealed.
    const placeholder = created({ email: 'redacted+cus_ada@invalid', name: null, user_id: null });
    expect(await seal('CheckoutSessionCustomerChanged', placeholder)).toEqual(placeholder);
  });

  it('refuses an altered, moved or unknown sealed value with a SealedDataError naming no data', async () => {
    const sealed = (await seal('CheckoutSessionCreated', created(ada))) as Body;
    const [v, key, iv, ct, tag] = (sealed.customer.email.$sealed as string).split('.');
    const flipped = `${ct!.slice(0, -2)}${ct!.endsWith('A') ? 'B' : 'A'}${ct!.slice(-1)}`;
    const variants = [
      { ...sealed, customer: { ...sealed.customer, email: { $sealed: [v, key, iv, flipped, tag].join('.') } } },
      { ...sealed, customer: { ...sealed.customer, email: sealed.customer.name } },
      { ...sealed, customer: { ...sealed.customer, email: { $sealed: [v, 'no-such-key', iv, ct, tag].join('.') } } },
      { ...sealed, customer: { ...sealed.customer, email: { $sealed: 'v1.cut' } } },
    ];
    for (const data of variants) {
      const error = await open('CheckoutSessionCreated', data).then(() => null, (e: unknown) => e);
      expect(error).toBeInstanceOf(SealedDataError);
      expect(String((error as Error).message)).not.toMatch(/ada/i);
    }
  });

  it("seals the buyer inside a webhook's payload and opens it to the very same string", async () => {
    const data = { id: 'd_1', organization_id: ORG, payload: payload({ email: ada.email, name: ada.name }) };
    const sealed = (await seal('WebhookDeliveryCreated', data)) as Body;
    expect(sealed.payload).not.toContain('Ada');
    expect(JSON.parse(sealed.payload as string)).toMatchObject({ data: { object: { number: 7, customer: { email: { $sealed: expect.any(String) } } } } });
    expect(((await open('WebhookDeliveryCreated', sealed)) as Body).payload).toBe(data.payload);
    const session = { id: 'd_2', organization_id: ORG, payload: JSON.stringify({ type: 'checkout.session.completed', data: { object: { customer_email: bob.email, customer_name: 'Bob' } } }) };
    const sealedSession = (await seal('WebhookDeliveryCreated', session)) as Body;
    expect(sealedSession.payload).not.toContain('bob@');
    expect(((await open('WebhookDeliveryCreated', sealedSession)) as Body).payload).toBe(session.payload);
    // A payload that is not JSON names nobody the table can find; one cut after sealing is refused.
    const text = { id: 'd_3', organization_id: ORG, payload: 'not json' };
    expect(await seal('WebhookDeliveryCreated', text)).toEqual(text);
    const cut = { ...sealed, payload: (sealed.payload as string).slice(0, -5) };
    await expect(open('WebhookDeliveryCreated', cut)).rejects.toBeInstanceOf(SealedDataError);
  });
});

describe('the vault cache', () => {
  it("sees its own process's erasure at once and another's at its next check", async () => {
    const { file, dispose } = tempSqliteFile();
    let now = 0;
    const here = cachedVault(openSqlitePersonalDataVault({ file }), { checkMs: 1000, now: () => now });
    const there = cachedVault(openSqlitePersonalDataVault({ file }), { checkMs: 1000, now: () => now });
    try {
      const key = await here.keyFor(ORG, 's');
      expect(await there.lookup(key.id)).toMatchObject({ status: 'live' });
      await here.destroy(ORG, 's', 'cus_1');
      expect(await here.lookup(key.id)).toEqual({ status: 'destroyed', redactedAs: 'cus_1' });
      expect(await there.lookup(key.id)).toMatchObject({ status: 'live' });
      now = 1000;
      expect(await there.lookup(key.id)).toEqual({ status: 'destroyed', redactedAs: 'cus_1' });
      expect((await there.keyFor(ORG, 's')).id).not.toBe(key.id);
    } finally {
      await here.close();
      await there.close();
      await dispose();
    }
  });
});

describe('the sealing event store', () => {
  let file: string;
  let dispose: () => Promise<void>;
  let store: EventStore;
  let vault: PersonalDataVault;
  beforeEach(() => {
    const temp = tempSqliteFile();
    file = temp.file;
    dispose = temp.dispose;
    vault = cachedVault(openSqlitePersonalDataVault({ file }));
    store = sealPersonalData(openSqliteEventStore({ file, pollIntervalMs: 20 }), vault, personalFields);
  });
  afterEach(async () => {
    await store.close();
    await dispose();
  });
  const event = (type: string, data: unknown): NewEvent => ({
    id: crypto.randomUUID(),
    type,
    data,
    metadata: { correlation_id: 'c', actor: { type: 'cli' }, organization_id: ORG, occurred_at: 1 },
  });

  it('writes sealed rows and reads plain events by stream, by revision, from the log and through subscriptions', async () => {
    const data = created(ada);
    await store.append('checkout_session-cs_1', [event('CheckoutSessionCreated', data), event('CheckoutSessionCancelled', { cancelled_at: 2 })], 'no_stream');
    await store.appendMany([{ stream: 'invoice-in_1', events: [event('InvoiceCreated', { id: 'in_1', customer: bob })], expected: 'no_stream' }]);
    const raw = new Database(file, { readonly: true });
    const rows = raw.prepare<[], { data: string }>('SELECT data FROM events').all();
    raw.close();
    expect(rows.map((r) => r.data).join('\n')).not.toMatch(/ada@|bob@|Lovelace/i);

    expect((await store.readStream('checkout_session-cs_1'))[0]!.data).toEqual(data);
    expect((await store.readEvent('invoice-in_1', 0))!.data).toEqual({ id: 'in_1', customer: bob });
    const all = await store.readAll({ after: null, limit: 10 });
    expect(all.map((e) => e.data)).toEqual([data, { cancelled_at: 2 }, { id: 'in_1', customer: bob }]);
    const seen: RecordedEvent[] = [];
    const subscription = store.subscribe(async (events) => void seen.push(...events), { after: null });
    await expect.poll(() => seen.length).toBe(3);
    await subscription.stop();
    expect(seen[0]!.data).toEqual(data);
  });

  it('opens a sealed event once for every subscription that reads it at the same moment', async () => {
    // The keys the reader asks its vault for: one per sealed field of each opening.
    let lookups = 0;
    const counted: PersonalDataVault = { ...vault, lookup: (keyId) => (lookups++, vault.lookup(keyId)), close: async () => undefined };
    const reader = sealPersonalData(openSqliteEventStore({ file, pollIntervalMs: 20 }), counted, personalFields);
    const seen: RecordedEvent[][] = Array.from({ length: 10 }, () => []);
    const subscriptions = seen.map((into) => reader.subscribe(async (events) => void into.push(...events), { after: null }));
    try {
      // Appended through the reader: its commit wakes every subscription at once.
      await reader.append('checkout_session-cs_3', [event('CheckoutSessionCreated', created(ada))], 'no_stream');
      await expect.poll(() => seen.every((s) => s.length === 1)).toBe(true);
      expect(seen.map((s) => (s[0]!.data as Body).customer.email)).toEqual(Array(10).fill(ada.email));
      // Email and name: one opening, not one per subscription.
      expect(lookups).toBe(2);
      expect((await reader.readStream('checkout_session-cs_3'))[0]!.data).toEqual(created(ada));
      expect(lookups).toBe(2);
    } finally {
      await Promise.all(subscriptions.map((s) => s.stop()));
      await reader.close();
    }
  });

  it("stops serving what it opened once another process's erasure is seen", async () => {
    let now = 0;
    const otherVault = cachedVault(openSqlitePersonalDataVault({ file }), { checkMs: 1000, now: () => now });
    const mine = cachedVault(openSqlitePersonalDataVault({ file }), { checkMs: 1000, now: () => now });
    const reader = sealPersonalData(openSqliteEventStore({ file, pollIntervalMs: 20 }), mine, personalFields);
    try {
      await store.append('checkout_session-cs_2', [event('CheckoutSessionCreated', created(ada))], 'no_stream');
      expect(((await reader.readStream('checkout_session-cs_2'))[0]!.data as Body).customer.email).toBe(ada.email);
      await otherVault.destroy(ORG, personalSubject(ORG, { email: ada.email })!, 'cus_ada');
      now = 1000;
      expect(((await reader.readStream('checkout_session-cs_2'))[0]!.data as Body).customer).toEqual({ email: 'redacted+cus_ada@invalid', name: null, user_id: null });
    } finally {
      await reader.close();
      await otherVault.close();
    }
  });
});
