import { readdirSync, readlinkSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CHECKOUT_SESSIONS } from '../../modules/checkout/index.ts';
import { GOOD_CARD, json, makeOffer } from '../checkout/checkoutFixtures.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

/** RFC 4180 read back: quoted fields with doubled quotes, CRLF records. */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let field = '';
  let record: string[] = [];
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        field += '"';
        i++;
      } else if (c === '"') quoted = false;
      else field += c;
    } else if (c === '"') quoted = true;
    else if (c === ',') {
      record.push(field);
      field = '';
    } else if (c === '\r' && text[i + 1] === '\n') {
      record.push(field);
      records.push(record);
      record = [];
      field = '';
      i++;
    } else field += c;
  }
  expect(field === '' && record.length === 0, 'the text ends with CRLF').toBe(true);
  return records;
}

const rowsOf = (records: string[][]) => {
  const [header, ...rows] = records;
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
};

describe('CSV exports of sales, invoices and customers', () => {
  let server: TestServer;
  const clock = manualClock(Date.UTC(2026, 10, 2, 10));
  let org: { organizationId: string; token: string };
  let owner: ManageClient;
  const sessions: string[] = [];

  const sale = async (slug: string, buyer: { email: string; name: string }, pay: boolean) => {
    const created = await server.fetch('/api/checkout/sessions', json({ offer: slug }));
    expect(created.status).toBe(201);
    const id = ((await created.json()) as { session: { id: string } }).session.id;
    if (pay) expect((await server.fetch(`/api/checkout/sessions/${id}/pay`, json({ card: GOOD_CARD, ...buyer }))).status).toBe(200);
    sessions.push(id);
    return id;
  };

  beforeAll(async () => {
    server = await startTestServer({ clock });
    org = await server.identity('Exports');
    const person = await signedInPerson(server, { organizationId: org.organizationId });
    owner = person.client;
    const offer = await makeOffer(server, org.organizationId, { slug: 'csv-offer' });
    expect(offer.uuid).toBeTruthy();
    await sale('csv-offer', { email: 'ann@example.com', name: 'Ann, "the first"' }, true);
    clock.advance(86_400_000);
    // A name a spreadsheet would run as a formula.
    await sale('csv-offer', { email: 'bob@example.com', name: '=HYPERLINK("https://evil.example/","click")' }, true);
    await sale('csv-offer', { email: 'cid@example.com', name: 'Cid' }, false);
    clock.advance(86_400_000);
    await sale('csv-offer', { email: 'dee@example.com', name: '@Dee' }, true);
    await server.settle();
    // The sign-in above is a day or two old: sign in again.
    expect((await owner.json('POST', '/manage/api/sign-in', { email: person.email, password: person.password })).status).toBe(200);
  });
  afterAll(() => server.close({ remove: true }));

  it('exports completed sessions of a date range as RFC 4180 CSV, money as decimals with the currency, formulas defused', async () => {
    const response = await server.fetch('/api/exports/sales.csv?from=2026-11-02&to=2026-11-03', { token: org.token });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(response.headers.get('content-disposition')).toBe('attachment; filename="sales-2026-11-02-2026-11-03.csv"');
    expect(response.headers.get('cache-control')).toBe('no-store');
    const text = await response.text();
    const rows = rowsOf(parseCsv(text));
    // The open session is no sale; the third day's is outside the range.
    expect(rows.map((r) => r.session_id)).toEqual([sessions[0], sessions[1]]);
    expect(rows[0]).toMatchObject({
      customer_email: 'ann@example.com',
      customer_name: 'Ann, "the first"',
      amount: '24.00',
      amount_refunded: '0.00',
      net: '24.00',
      currency: 'EUR',
      completed_at: '2026-11-02T10:00:00Z',
      mode: 'test',
      invoice_status: 'paid',
    });
    expect(text).toContain('"Ann, ""the first"""');
    expect(rows[1]!.customer_name).toBe(`'=HYPERLINK("https://evil.example/","click")`);
    expect(text.split('\r\n')[0]).toBe(
      'session_id,completed_at,created_at,mode,offer_id,offer_name,customer_email,customer_name,customer_user_id,amount,amount_refunded,net,currency,promo,invoice_id,invoice_number,invoice_status,subscription_id,customer_id,subtotal,discount,coupon,discount_code,tax,tax_country,taxability_reason,reverse_charge',
    );
  });

  it('exports every sale without a range, and the invoices created in one', async () => {
    const all = rowsOf(parseCsv(await (await server.fetch('/api/exports/sales.csv', { token: org.token })).text()));
    expect(all.map((r) => r.session_id)).toEqual([sessions[0], sessions[1], sessions[3]]);
    expect(all[2]!.customer_name).toBe("'@Dee");
    const invoices = rowsOf(parseCsv(await (await server.fetch(`/api/exports/invoices.csv?from=2026-11-03`, { token: org.token })).text()));
    expect(invoices).toHaveLength(2);
    expect(invoices[0]).toMatchObject({ status: 'paid', total: '24.00', amount_paid: '24.00', currency: 'EUR', customer_email: 'bob@example.com', session_id: sessions[1], billing_reason: 'manual' });
    expect(invoices[1]).toMatchObject({ customer_email: 'dee@example.com', session_id: sessions[3] });
    // Unix seconds are exclusive at the end: one second before the third day's sale leaves it out.
    const third = Date.UTC(2026, 10, 4, 10) / 1000;
    const before = rowsOf(parseCsv(await (await server.fetch(`/api/exports/invoices.csv?from=2026-11-03&to=${third}`, { token: org.token })).text()));
    expect(before.map((r) => r.session_id)).toEqual([sessions[1]]);
  });

  it('gives the dashboard the same file on its session, and another organization none of these rows', async () => {
    const bearer = await (await server.fetch('/api/exports/sales.csv?from=2026-11-01', { token: org.token })).text();
    const dashboard = await owner.request('GET', '/manage/api/exports/sales.csv?from=2026-11-01');
    expect(dashboard.status).toBe(200);
    expect(await dashboard.text()).toBe(bearer);
    const other = await server.identity('Other');
    for (const kind of ['sales', 'invoices', 'customers']) {
      const text = await (await server.fetch(`/api/exports/${kind}.csv`, { token: other.token })).text();
      expect(parseCsv(text)).toHaveLength(1);
    }
    expect((await server.fetch('/api/exports/sales.csv')).status).toBe(401);
    expect((await owner.request('GET', '/manage/api/exports/customers-of-others.csv')).status).toBe(404);
  });

  it('exports the customers made in a range, a line per currency, and names them on sales and invoices', async () => {
    const response = await server.fetch('/api/exports/customers.csv?from=2026-11-01', { token: org.token });
    expect(response.status).toBe(200);
    const customers = rowsOf(parseCsv(await response.text()));
    // Cid never paid: no customer. Each of the others bought once, €24.00.
    expect(customers.map((c) => c.email)).toEqual(['ann@example.com', 'bob@example.com', 'dee@example.com']);
    expect(customers[0]).toMatchObject({ name: 'Ann, "the first"', mode: 'test', purchases_count: '1', currency: 'EUR', total_spent: '24.00', total_refunded: '0.00', net: '24.00' });
    expect(customers[0]!.customer_id).toMatch(/^cus_/);
    expect(customers[1]!.name).toBe(`'=HYPERLINK("https://evil.example/","click")`);
    const sales = rowsOf(parseCsv(await (await server.fetch('/api/exports/sales.csv', { token: org.token })).text()));
    expect(sales.map((r) => r.customer_id)).toEqual(customers.map((c) => c.customer_id));
    const invoices = rowsOf(parseCsv(await (await server.fetch('/api/exports/invoices.csv', { token: org.token })).text()));
    expect(invoices.map((r) => r.customer_id)).toEqual(customers.map((c) => c.customer_id));
    const dashboard = await owner.request('GET', '/manage/api/exports/customers.csv?from=2026-11-01');
    expect(dashboard.status).toBe(200);
  });

  it('refuses a malformed or backwards range with 422 and the field', async () => {
    for (const [query, field] of [
      ['from=yesterday', 'from'],
      ['to=2026-13-01', 'to'],
      ['from=2026-02-30', 'from'],
      ['from=2026-11-05&to=2026-11-01', 'to'],
    ] as const) {
      const response = await server.fetch(`/api/exports/sales.csv?${query}`, { token: org.token });
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as { code: string; errors: Record<string, string[]> };
      expect(body.code, query).toBe('validation_failed');
      expect(Object.keys(body.errors), query).toEqual([field]);
    }
  });
});

/** This process's open files on the data directory's database (its own connections, and a stream's). */
const openDatabaseFiles = (dataDir: string) =>
  readdirSync('/proc/self/fd').filter((fd) => {
    try {
      return readlinkSync(`/proc/self/fd/${fd}`).startsWith(`${dataDir}/commerce.db`);
    } catch {
      return false;
    }
  }).length;

describe.skipIf(process.platform !== 'linux')('a CSV export the client stops reading', () => {
  let server: TestServer;

  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('lets its cursor go when the client leaves mid-export, export after export', async () => {
    const org = await server.identity('Big shop');
    // 20,000 sales (about 3 MB of CSV), written as the checkout projection writes them.
    for (let i = 0; i < 20_000; i += 2000) {
      const ops = Array.from({ length: 2000 }, (_, n) => {
        const at = 1_790_000_000 + i + n;
        const doc = { id: `cs_many${i + n}`, organization_id: org.organizationId, status: 'completed', total: 900, currency: 'EUR', mode: 'test', created_at: at, completed_at: at, expires_at: at, offer: { uuid: 'u', id: 'o1', slug: 'many', name: 'Many' }, customer: { email: `b${i + n}@example.com`, name: null, user_id: null }, invoice: null, promo: null };
        return { op: 'upsert' as const, collection: CHECKOUT_SESSIONS, doc };
      });
      await server.services.readStore.commit('many_seed', ops, { expected: i === 0 ? null : i, next: i + 2000 });
    }
    const before = openDatabaseFiles(server.dataDir);
    // Five exports left after their first chunk: each one's connection goes with it. (SQLite keeps
    // a closed connection's file open for the next to reuse while others hold locks: one, never
    // one per export.)
    for (let round = 0; round < 5; round++) {
      const abort = new AbortController();
      const response = await server.fetch('/api/exports/sales.csv', { token: org.token, signal: abort.signal });
      expect(response.status).toBe(200);
      const reader = response.body!.getReader();
      const first = await reader.read();
      expect(first.value!.length).toBeGreaterThan(0);
      abort.abort();
      await reader.cancel().catch(() => undefined);
      await expect.poll(() => openDatabaseFiles(server.dataDir), { timeout: 10_000 }).toBeLessThanOrEqual(before + 1);
    }
    // And the next export reads the whole of it.
    const whole = await (await server.fetch('/api/exports/sales.csv', { token: org.token })).text();
    expect(whole.split('\r\n')).toHaveLength(20_002);
  });
});

