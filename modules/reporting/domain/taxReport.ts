import { csvLine, decimalAmount, isoTime } from './csv.ts';

/** How the tax report cuts time: calendar periods in the organization's time zone. */
export const TAX_INTERVALS = ['day', 'month', 'quarter', 'year'] as const;
export type TaxInterval = (typeof TAX_INTERVALS)[number];

/** What the report adds up: a paid invoice (positive) or a credit note (negative). */
export type TaxEntry = {
  /** YYYY-MM-DD in the organization's time zone. */
  date: string;
  country: string | null;
  rate: number;
  taxability_reason: string;
  currency: string;
  taxable_amount: number;
  tax_amount: number;
  invoices: number;
  credit_notes: number;
};

export type TaxReportRow = {
  /** `2026-11`, `2026-Q4`, `2026`, or `2026-11-27`. */
  period: string;
  period_start: number;
  period_end: number;
  country: string | null;
  tax_rate: number;
  taxability_reason: string;
  currency: string;
  /** Net of tax, minor units: invoices less credit notes. */
  taxable_amount: number;
  tax_amount: number;
  invoice_count: number;
  credit_note_count: number;
};

export type TaxReportTotal = { currency: string; taxable_amount: number; tax_amount: number; invoice_count: number; credit_note_count: number };

/** The period a day falls in, and the first day of it and of the next. */
export function periodOf(date: string, interval: TaxInterval): { period: string; first: string; next: string } {
  const [y, m] = [Number(date.slice(0, 4)), Number(date.slice(5, 7))];
  const day = (year: number, month: number) => `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-01`;
  switch (interval) {
    case 'day': {
      const next = new Date(Date.parse(`${date}T00:00:00Z`) + 86_400_000).toISOString().slice(0, 10);
      return { period: date, first: date, next };
    }
    case 'month':
      return { period: date.slice(0, 7), first: day(y, m), next: m === 12 ? day(y + 1, 1) : day(y, m + 1) };
    case 'quarter': {
      const q = Math.floor((m - 1) / 3);
      return { period: `${y}-Q${q + 1}`, first: day(y, q * 3 + 1), next: q === 3 ? day(y + 1, 1) : day(y, q * 3 + 4) };
    }
    case 'year':
      return { period: String(y), first: day(y, 1), next: day(y + 1, 1) };
  }
}

/**
 * The rows of the report, fed one entry at a time (it holds its rows, not its entries): per period
 * × country × rate × taxability reason × currency, the net, the tax and the number of invoices and
 * credit notes; `startOf` turns a day into the Unix second it starts at in the organization's time
 * zone. Sorted by period, then country, rate, reason, currency.
 */
export function taxReportSums(interval: TaxInterval, startOf: (date: string) => number) {
  const rows = new Map<string, TaxReportRow>();
  const totals = new Map<string, TaxReportTotal>();
  const add = (e: TaxEntry) => {
    const p = periodOf(e.date, interval);
    const key = JSON.stringify([p.period, e.country, e.rate, e.taxability_reason, e.currency]);
    let row = rows.get(key);
    if (!row) {
      row = {
        period: p.period,
        period_start: startOf(p.first),
        period_end: startOf(p.next),
        country: e.country,
        tax_rate: e.rate,
        taxability_reason: e.taxability_reason,
        currency: e.currency,
        taxable_amount: 0,
        tax_amount: 0,
        invoice_count: 0,
        credit_note_count: 0,
      };
      rows.set(key, row);
    }
    const total = totals.get(e.currency) ?? { currency: e.currency, taxable_amount: 0, tax_amount: 0, invoice_count: 0, credit_note_count: 0 };
    totals.set(e.currency, total);
    for (const into of [row, total]) {
      into.taxable_amount += e.taxable_amount;
      into.tax_amount += e.tax_amount;
      into.invoice_count += e.invoices;
      into.credit_note_count += e.credit_notes;
    }
  };
  const order = (a: TaxReportRow, b: TaxReportRow) =>
    a.period_start - b.period_start ||
    (a.country ?? '~').localeCompare(b.country ?? '~') ||
    a.tax_rate - b.tax_rate ||
    a.taxability_reason.localeCompare(b.taxability_reason) ||
    a.currency.localeCompare(b.currency);
  const result = () => ({ rows: [...rows.values()].sort(order), totals: [...totals.values()].sort((a, b) => a.currency.localeCompare(b.currency)) });
  return { add, result };
}

export const TAX_CSV_HEADER = [
  'period', 'period_start', 'period_end', 'country', 'tax_rate', 'taxability_reason', 'currency', 'taxable_amount', 'tax_amount', 'invoice_count', 'credit_note_count',
] as const;

/** The report as RFC 4180 CSV: the rows of the JSON, amounts as decimals of their currency. */
export function taxReportCsv(rows: readonly TaxReportRow[]): string {
  let csv = csvLine(TAX_CSV_HEADER);
  for (const r of rows) {
    csv += csvLine([
      r.period, isoTime(r.period_start), isoTime(r.period_end), r.country, r.tax_rate, r.taxability_reason, r.currency.toUpperCase(),
      decimalAmount(r.taxable_amount, r.currency), decimalAmount(r.tax_amount, r.currency), r.invoice_count, r.credit_note_count,
    ]);
  }
  return csv;
}
