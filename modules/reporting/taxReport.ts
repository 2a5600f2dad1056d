import type { EventStore } from '../../platform/eventStore/index.ts';
import type { Filter, ReadStore } from '../../platform/readStore/index.ts';
import { loadOrganization } from '../identity/index.ts';
import type { ExportRange } from './csvExports.ts';
import { taxReportSums, type TaxInterval, type TaxReportRow, type TaxReportTotal } from './domain/taxReport.ts';
import { TAX_REPORT_ENTRIES, type TaxReportEntry } from './taxReportProjection.ts';
import { dateIn, startOfDate } from './zonedDays.ts';

export type TaxReport = {
  timezone: string;
  interval: TaxInterval;
  from: number | null;
  to: number | null;
  mode: 'test' | 'live' | null;
  data: TaxReportRow[];
  totals: TaxReportTotal[];
};

/**
 * The organization's tax report over [from, to): the paid invoices and credit notes of the range,
 * read from the `tax_report_entries` read model in batches and added up per period (in the
 * organization's time zone), country, rate, taxability reason and currency.
 */
export async function taxReport(
  deps: { store: EventStore; readStore: ReadStore },
  organizationId: string,
  q: { range: ExportRange; interval: TaxInterval; mode?: 'test' | 'live' | undefined },
): Promise<TaxReport> {
  const timezone = (await loadOrganization(deps.store, organizationId))?.timezone ?? 'UTC';
  const at: { $gte?: number; $lt?: number } = {};
  if (q.range.from !== undefined) at.$gte = q.range.from;
  if (q.range.to !== undefined) at.$lt = q.range.to;
  const filter: Filter = { organization_id: organizationId, ...(Object.keys(at).length ? { at } : {}), ...(q.mode ? { mode: q.mode } : {}) };
  const sums = taxReportSums(q.interval, (date) => startOfDate(date, timezone));
  for await (const batch of deps.readStore.stream<TaxReportEntry>(TAX_REPORT_ENTRIES, { filter, sort: [['at', 1]] })) {
    for (const e of batch) {
      sums.add({
        date: dateIn(e.at, timezone),
        country: e.country,
        rate: e.rate,
        taxability_reason: e.taxability_reason,
        currency: e.currency,
        taxable_amount: e.taxable_amount,
        tax_amount: e.tax_amount,
        invoices: e.invoices,
        credit_notes: e.credit_notes,
      });
    }
  }
  const { rows, totals } = sums.result();
  return { timezone, interval: q.interval, from: q.range.from ?? null, to: q.range.to ?? null, mode: q.mode ?? null, data: rows, totals };
}
