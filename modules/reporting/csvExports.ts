import type { EventStore } from '../../platform/eventStore/index.ts';
import type { Doc, Filter, Query, ReadStore } from '../../platform/readStore/index.ts';
import { CHECKOUT_SESSIONS, type SessionView } from '../checkout/index.ts';
import { loadOrganization } from '../identity/index.ts';
import { CUSTOMERS, type CustomerDoc } from '../customers/index.ts';
import { INVOICES, type InvoiceDoc } from '../subscriptions/index.ts';
import { csvLine, decimalAmount, isoTime, type CsvValue } from './domain/csv.ts';
import { startOfDate } from './zonedDays.ts';
import { taxKeyOf } from './taxReportProjection.ts';
import type { PricingRecord } from '../../platform/domain/index.ts';

/**
 * The CSV exports of an organization's data over a time range: each a header and its rows, read
 * from the read store's cursor one document at a time, so an export of any size holds one batch.
 */

export const EXPORT_KINDS = ['sales', 'invoices', 'customers'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** [from, to) in Unix seconds; an open end is absent. */
export type ExportRange = { from?: number; to?: number };

/** An export: its header, the documents it reads (in order) and the rows each becomes. */
type CsvExport<D extends Doc = Doc> = {
  header: readonly string[];
  source(organizationId: string, range: ExportRange): { collection: string; query: Query };
  rows(doc: D): CsvValue[][];
};

const within = (field: string, range: ExportRange): Filter => {
  const bounds: { $gte?: number; $lt?: number } = {};
  if (range.from !== undefined) bounds.$gte = range.from;
  if (range.to !== undefined) bounds.$lt = range.to;
  return Object.keys(bounds).length ? { [field]: bounds } : {};
};

type SaleDoc = SessionView & { completed_at: number };

/** The discount and tax columns a sale and an invoice share, after their own. */
const PRICING_HEADER = ['subtotal', 'discount', 'coupon', 'discount_code', 'tax', 'tax_country', 'taxability_reason', 'reverse_charge'] as const;

/** As recorded at checkout; without pricing, the total is the subtotal and there is no discount or tax. */
function pricingCells(pricing: PricingRecord | null, total: number, currency: string): CsvValue[] {
  const money = (minor: number) => decimalAmount(minor, currency);
  if (!pricing) return [money(total), money(0), null, null, money(0), null, null, 'false'];
  const key = taxKeyOf(pricing);
  return [
    money(pricing.subtotal), money(pricing.total_discount), pricing.discount?.coupon.id, pricing.discount?.promotion_code?.code,
    money(pricing.total_tax), key.country, pricing.tax ? key.taxability_reason : null, String(key.taxability_reason === 'reverse_charge'),
  ];
}

/** Checkout sessions that completed in the range, by completion time. */
const sales: CsvExport<SaleDoc> = {
  header: [
    'session_id', 'completed_at', 'created_at', 'mode', 'offer_id', 'offer_name', 'customer_email', 'customer_name', 'customer_user_id',
    'amount', 'amount_refunded', 'net', 'currency', 'promo', 'invoice_id', 'invoice_number', 'invoice_status', 'subscription_id', 'customer_id',
    ...PRICING_HEADER,
  ],
  source: (organizationId, range) => ({
    collection: CHECKOUT_SESSIONS,
    query: { filter: { organization_id: organizationId, status: 'completed', ...within('completed_at', range) }, sort: [['completed_at', 1]] },
  }),
  rows(s) {
    const refunded = s.invoice?.amount_refunded ?? 0;
    return [[
      s.id, isoTime(s.completed_at), isoTime(s.created_at), s.mode, s.offer.id, s.offer.name,
      s.customer?.email, s.customer?.name, s.customer?.user_id,
      decimalAmount(s.total, s.currency), decimalAmount(refunded, s.currency), decimalAmount(s.total - refunded, s.currency), s.currency.toUpperCase(),
      s.promo, s.invoice?.id, s.invoice?.number, s.invoice?.status, s.subscription?.id, s.customer_id,
      ...pricingCells(s.invoice?.pricing ?? s.pricing ?? null, s.total, s.currency),
    ]];
  },
};

/** Every invoice (a checkout's and a subscription's) created in the range, by creation time. */
const invoices: CsvExport<InvoiceDoc> = {
  header: [
    'invoice_id', 'number', 'status', 'created_at', 'paid_at', 'voided_at', 'mode', 'billing_reason', 'customer_email', 'customer_name',
    'total', 'amount_paid', 'amount_refunded', 'amount_due', 'currency', 'session_id', 'subscription_id', 'period_start', 'period_end', 'customer_id',
    ...PRICING_HEADER,
  ],
  source: (organizationId, range) => ({
    collection: INVOICES,
    query: { filter: { organization_id: organizationId, ...within('created_at', range) }, sort: [['created_at', 1]] },
  }),
  rows(i) {
    const money = (minor: number) => decimalAmount(minor, i.currency);
    return [[
      i.id, i.number, i.status, isoTime(i.created_at), isoTime(i.paid_at), isoTime(i.voided_at), i.mode, i.billing_reason,
      i.customer?.email, i.customer?.name,
      money(i.total), money(i.amount_paid), money(i.amount_refunded), money(i.amount_due), i.currency.toUpperCase(),
      i.session_id, i.subscription, isoTime(i.period?.start), isoTime(i.period?.end), i.customer_id,
      ...pricingCells(i.pricing ?? null, i.total, i.currency),
    ]];
  },
};

/**
 * The organization's customers made in the range, by creation: one line per currency they paid
 * in (a sum per line adds up in a spreadsheet), one with no currency for a customer who paid
 * nothing yet. An erased customer's email and name read empty, as everywhere.
 */
const customers: CsvExport<CustomerDoc> = {
  header: [
    'customer_id', 'email', 'name', 'user_id', 'mode', 'created_at', 'purchases_count', 'invoices_count', 'subscriptions',
    'last_purchase_at', 'redacted_at', 'currency', 'total_spent', 'total_refunded', 'net',
  ],
  source: (organizationId, range) => ({
    collection: CUSTOMERS,
    query: { filter: { organization_id: organizationId, ...within('created_at', range) }, sort: [['created_at', 1]] },
  }),
  rows(c) {
    const person = [
      c.id, c.email, c.name, c.user_id, c.mode, isoTime(c.created_at), c.purchases_count, c.invoices_count,
      c.subscriptions.map((s) => s.id).join(' '), isoTime(c.last_purchase_at), isoTime(c.redacted_at),
    ];
    const currencies = [...new Set([...Object.keys(c.total_spent), ...Object.keys(c.total_refunded)])].sort();
    if (currencies.length === 0) return [[...person, null, null, null, null]];
    return currencies.map((currency) => {
      const [spent, refunded] = [c.total_spent[currency] ?? 0, c.total_refunded[currency] ?? 0];
      return [...person, currency.toUpperCase(), decimalAmount(spent, currency), decimalAmount(refunded, currency), decimalAmount(spent - refunded, currency)];
    });
  },
};

export const CSV_EXPORTS = { sales, invoices, customers } as const satisfies Record<ExportKind, unknown>;

/** Lines are sent in chunks of about this many characters: one write per chunk, not per row. */
const CHUNK = 64 * 1024;

/**
 * The export as CSV text in chunks, header first. It reads the next batch of documents only when
 * the consumer asks for the next chunk (a Readable.from over it follows the socket's
 * backpressure); `onRows` counts the lines written.
 */
export async function* csvChunks(kind: ExportKind, readStore: ReadStore, organizationId: string, range: ExportRange, onRows?: (n: number) => void): AsyncGenerator<string> {
  const spec = CSV_EXPORTS[kind] as CsvExport<Doc>;
  const { collection, query } = spec.source(organizationId, range);
  let chunk = csvLine(spec.header);
  for await (const batch of readStore.stream(collection, query)) {
    let lines = 0;
    for (const doc of batch) {
      for (const row of spec.rows(doc)) {
        chunk += csvLine(row);
        lines++;
      }
    }
    onRows?.(lines);
    if (chunk.length >= CHUNK) {
      yield chunk;
      chunk = '';
    }
  }
  if (chunk) yield chunk;
}

/** A bound of a range as given: a day (YYYY-MM-DD, in the organization's time zone) or Unix seconds. */
export const RANGE_BOUND = /^(\d{4}-\d{2}-\d{2}|\d{1,12})$/;

export class ExportRangeError extends Error {
  override readonly name = 'ExportRangeError';
  constructor(
    readonly field: 'from' | 'to',
    message: string,
  ) {
    super(message);
  }
}

const DAY = 86_400;

/**
 * The range of `from` and `to` as given: Unix seconds, or days in the organization's time zone;
 * `to` as a day takes that whole day in (a range from 2026-11-01 to 2026-11-30 is November).
 */
export async function exportRange(store: EventStore, organizationId: string, given: { from?: string | undefined; to?: string | undefined }): Promise<ExportRange> {
  const needsZone = [given.from, given.to].some((v) => v !== undefined && v.includes('-'));
  const timeZone = needsZone ? ((await loadOrganization(store, organizationId))?.timezone ?? 'UTC') : 'UTC';
  const bound = (field: 'from' | 'to', value: string | undefined): number | undefined => {
    if (value === undefined) return undefined;
    if (!RANGE_BOUND.test(value)) throw new ExportRangeError(field, `The ${field} must be a date (YYYY-MM-DD) or Unix seconds.`);
    if (!value.includes('-')) return Number(value);
    if (Number.isNaN(Date.parse(`${value}T00:00:00Z`)) || new Date(`${value}T00:00:00Z`).toISOString().slice(0, 10) !== value) {
      throw new ExportRangeError(field, `The ${field} is not a calendar date: ${value}.`);
    }
    const start = startOfDate(value, timeZone);
    return field === 'to' ? startOfDate(new Date((Date.parse(`${value}T00:00:00Z`) / 1000 + DAY) * 1000).toISOString().slice(0, 10), timeZone) : start;
  };
  const range: ExportRange = {};
  const from = bound('from', given.from);
  const to = bound('to', given.to);
  if (from !== undefined) range.from = from;
  if (to !== undefined) range.to = to;
  if (from !== undefined && to !== undefined && to < from) throw new ExportRangeError('to', 'The to must not be before the from.');
  return range;
}

/** The file name an export is offered under: `sales-2026-11-01-2026-11-30.csv`. */
export function exportFileName(kind: ExportKind | 'tax', given: { from?: string | undefined; to?: string | undefined }): string {
  const part = (v: string | undefined, none: string) => (v === undefined ? none : /^\d+$/.test(v) ? isoTime(Number(v)).slice(0, 10) : v);
  return `${kind}-${part(given.from, 'start')}-${part(given.to, 'now')}.csv`;
}
