import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApiKey } from '../../modules/identity/identityCommands.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { appendPricedSale, appendRefund, business, consumer, GERMAN_VAT, launch20, REVERSE_CHARGE, type PricedSale } from '../receipts/pricedSale.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const WAIT = { timeout: 30_000, interval: 100 };
const at = (iso: string) => Date.parse(iso) / 1000;

/** RFC 4180 read back (no field here holds a quote or a comma). */
const csvRows = (text: string) => {
  expect(text.endsWith('\r\n')).toBe(true);
  const [header, ...rows] = text.slice(0, -2).split('\r\n').map((line) => line.split(','));
  return rows.map((r) => Object.fromEntries(header!.map((h, i) => [h, r[i]!])));
};

const FRENCH_VAT = { ...GERMAN_VAT, tax_rate: { id: 'txr_fr', display_name: 'VAT', percentage: 20, country: 'FR', state: null, jurisdiction: null }, percentage: 20, behavior: 'inclusive' as const };

describe('the tax report', { timeout: 120_000 }, () => {
  let server: TestServer;
  let org: { organizationId: string; token: string };
  let owner: Awaited<ReturnType<typeof signedInPerson>>;
  const sales: Record<string, PricedSale> = {};
  const out = mkdtempSync(join(tmpdir(), 'commerce-tax-'));

  beforeAll(async () => {
    server = await startTestServer();
    owner = await signedInPerson(server);
    org = { organizationId: owner.organizationId, token: (await createApiKey(server.cliContext(owner.organizationId), { userId: owner.userId, organizationId: owner.organizationId })).token };
    const store = server.services.store;
    const organizationId = owner.organizationId;
    const lines = [
      { name: 'Pro plan', amount: 10_000 },
      { name: 'Add-on', amount: 2_500 },
    ];
    sales.discounted = await appendPricedSale(store, { organizationId, lines, discount: launch20(), customer: consumer('DE'), at: at('2026-11-05T10:00:00Z') });
    sales.plain = await appendPricedSale(store, { organizationId, lines: [{ name: 'Starter', amount: 5_000 }], customer: consumer('DE'), at: at('2026-11-20T10:00:00Z') });
    sales.reverse = await appendPricedSale(store, { organizationId, lines: [{ name: 'Team', amount: 50_000 }], tax: REVERSE_CHARGE, customer: business('FR', 'FR12345678901', 'Atelier Dupont SARL'), at: at('2026-11-21T10:00:00Z') });
    sales.french = await appendPricedSale(store, { organizationId, lines: [{ name: 'Pro plan', amount: 12_000 }], tax: FRENCH_VAT, customer: consumer('FR'), at: at('2026-12-02T10:00:00Z') });
    await appendRefund(store, sales.discounted, { organizationId, amount: 5_000, amountRefunded: 5_000, at: at('2026-12-03T10:00:00Z') });
    await vi.waitFor(async () => {
      await server.settle();
      const notes = await owner.client.json<{ data: Body[] }>('GET', `/manage/api/credit_notes?invoice=${sales.discounted!.invoiceId}`);
      expect(notes.body.data).toHaveLength(1);
    }, WAIT);
    await server.settle();
  });
  afterAll(async () => {
    await server?.close({ remove: true });
    rmSync(out, { recursive: true, force: true });
  });

  it('adds up tax per month, country, rate and reason; credit notes take theirs back', async () => {
    const report = await owner.client.json<Body>('GET', '/manage/api/reports/tax?from=2026-11-01&to=2026-12-31');
    expect(report.status).toBe(200);
    expect(report.body).toMatchObject({ timezone: 'UTC', interval: 'month', mode: null });
    const rows = (report.body.data as Body[]).map(({ period, country, tax_rate, taxability_reason, currency, taxable_amount, tax_amount, invoice_count, credit_note_count }) => ({
      period, country, tax_rate, taxability_reason, currency, taxable_amount, tax_amount, invoice_count, credit_note_count,
    }));
    expect(rows).toEqual([
      { period: '2026-11', country: 'DE', tax_rate: 19, taxability_reason: 'standard_rated', currency: 'eur', taxable_amount: 15_000, tax_amount: 2_850, invoice_count: 2, credit_note_count: 0 },
      { period: '2026-11', country: 'FR', tax_rate: 0, taxability_reason: 'reverse_charge', currency: 'eur', taxable_amount: 50_000, tax_amount: 0, invoice_count: 1, credit_note_count: 0 },
      { period: '2026-12', country: 'DE', tax_rate: 19, taxability_reason: 'standard_rated', currency: 'eur', taxable_amount: -4_202, tax_amount: -798, invoice_count: 0, credit_note_count: 1 },
      { period: '2026-12', country: 'FR', tax_rate: 20, taxability_reason: 'standard_rated', currency: 'eur', taxable_amount: 10_000, tax_amount: 2_000, invoice_count: 1, credit_note_count: 0 },
    ]);
    expect(report.body.data[0]).toMatchObject({ period_start: at('2026-11-01T00:00:00Z'), period_end: at('2026-12-01T00:00:00Z') });

    // The report sums to the invoices' tax less the credit notes' (read through their own routes).
    const invoices = (await owner.client.json<{ data: Body[] }>('GET', '/manage/api/invoices?per_page=100')).body.data;
    const invoiceTax = invoices.reduce((sum: number, i) => sum + (i.pricing?.total_tax ?? 0), 0);
    const notes = (await owner.client.json<{ data: Body[] }>('GET', '/manage/api/credit_notes')).body.data;
    const noteTax = notes.reduce((sum: number, n) => sum + n.tax_amounts.reduce((s: number, t: Body) => s + t.amount, 0), 0);
    expect(invoiceTax).toBe(1_900 + 950 + 0 + 2_000);
    expect(report.body.totals).toEqual([{ currency: 'eur', taxable_amount: 15_000 + 50_000 - 4_202 + 10_000, tax_amount: invoiceTax - noteTax, invoice_count: 4, credit_note_count: 1 }]);

    const quarter = await owner.client.json<Body>('GET', '/manage/api/reports/tax?interval=quarter');
    expect((quarter.body.data as Body[]).map((r) => [r.period, r.country, r.tax_rate, r.tax_amount])).toEqual([
      ['2026-Q4', 'DE', 19, 2_850 - 798],
      ['2026-Q4', 'FR', 0, 0],
      ['2026-Q4', 'FR', 20, 2_000],
    ]);
    const november = await owner.client.json<Body>('GET', '/manage/api/reports/tax?from=2026-11-01&to=2026-11-30&mode=test');
    expect((november.body.data as Body[]).map((r) => r.period)).toEqual(['2026-11', '2026-11']);
    expect((await owner.client.json<Body>('GET', '/manage/api/reports/tax?mode=live')).body.data).toEqual([]);
  });

  it('answers the same rows as CSV, on the bearer API, the dashboard and the CLI', async () => {
    const json = (await owner.client.json<Body>('GET', '/manage/api/reports/tax?from=2026-11-01')).body;
    const csv = await owner.client.request('GET', '/manage/api/exports/tax.csv?from=2026-11-01');
    expect(csv.status).toBe(200);
    expect(csv.headers.get('content-type')).toBe('text/csv; charset=utf-8');
    expect(csv.headers.get('content-disposition')).toBe('attachment; filename="tax-2026-11-01-now.csv"');
    const text = await csv.text();
    expect(text.split('\r\n')[0]).toBe('period,period_start,period_end,country,tax_rate,taxability_reason,currency,taxable_amount,tax_amount,invoice_count,credit_note_count');
    const rows = csvRows(text);
    expect(rows).toHaveLength(json.data.length);
    rows.forEach((row, i) => {
      const r = json.data[i] as Body;
      expect(row).toEqual({
        period: r.period,
        period_start: new Date(r.period_start * 1000).toISOString().replace('.000Z', 'Z'),
        period_end: new Date(r.period_end * 1000).toISOString().replace('.000Z', 'Z'),
        country: r.country ?? '',
        tax_rate: String(r.tax_rate),
        taxability_reason: r.taxability_reason,
        currency: 'EUR',
        taxable_amount: (r.taxable_amount / 100).toFixed(2),
        tax_amount: (r.tax_amount / 100).toFixed(2),
        invoice_count: String(r.invoice_count),
        credit_note_count: String(r.credit_note_count),
      });
    });
    // A credit note's negative amounts stay numbers a spreadsheet sums.
    expect(text).toContain(',-42.02,-7.98,0,1\r\n');

    const token = org.token;
    expect((await server.fetch('/api/reports/tax?from=2026-11-01', { token })).status).toBe(200);
    expect(await (await server.fetch('/api/reports/tax?from=2026-11-01', { token })).json()).toEqual(json);
    expect(await (await server.fetch('/api/exports/tax.csv?from=2026-11-01', { token })).text()).toBe(text);

    const file = join(out, 'tax.csv');
    const run = await runCli(['export', 'tax', '--org', owner.organizationId, '--from', '2026-11-01', '--out', file], { DATA_DIR: server.dataDir });
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.trim()).toBe(`wrote 4 tax report rows of ${owner.organizationId} to ${file}`);
    expect(readFileSync(file, 'utf8')).toBe(text);
    const bad = await runCli(['export', 'tax', '--org', owner.organizationId, '--interval', 'week', '--out', file], { DATA_DIR: server.dataDir });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--interval: must be one of day, month, quarter, year.');
  });

  it('shows another organization none of it, and refuses a bad interval or range with 422', async () => {
    const other = await server.identity('Other shop');
    expect((await (await server.fetch('/api/reports/tax', { token: other.token })).json()).data).toEqual([]);
    expect((await server.fetch('/api/reports/tax')).status).toBe(401);
    for (const [query, field] of [
      ['interval=week', 'interval'],
      ['from=yesterday', 'from'],
      ['from=2026-12-01&to=2026-11-01', 'to'],
    ] as const) {
      const response = await server.fetch(`/api/reports/tax?${query}`, { token: other.token });
      expect(response.status, query).toBe(422);
      const body = (await response.json()) as Body;
      expect(Object.keys(body.errors), query).toEqual([field]);
    }
  });

  it('puts the subtotal, discount, code, tax, tax country and reverse charge on the sales and invoices CSV', async () => {
    const sales_ = csvRows(await (await owner.client.request('GET', '/manage/api/exports/sales.csv')).text());
    const byInvoice = new Map(sales_.map((r) => [r.invoice_id, r]));
    expect(byInvoice.get(sales.discounted!.invoiceId)).toMatchObject({
      amount: '119.00', subtotal: '125.00', discount: '25.00', coupon: 'co_launch', discount_code: 'LAUNCH20', tax: '19.00', tax_country: 'DE', taxability_reason: 'standard_rated', reverse_charge: 'false',
    });
    expect(byInvoice.get(sales.reverse!.invoiceId)).toMatchObject({ subtotal: '500.00', discount: '0.00', coupon: '', tax: '0.00', tax_country: 'FR', taxability_reason: 'reverse_charge', reverse_charge: 'true' });
    const invoices = csvRows(await (await owner.client.request('GET', '/manage/api/exports/invoices.csv')).text());
    expect(invoices.find((r) => r.invoice_id === sales.french!.invoiceId)).toMatchObject({ total: '120.00', subtotal: '120.00', discount: '0.00', tax: '20.00', tax_country: 'FR', reverse_charge: 'false' });
  });
});
