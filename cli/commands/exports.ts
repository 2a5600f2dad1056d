import { createWriteStream } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvChunks, EXPORT_KINDS, exportRange, ExportRangeError, type ExportKind } from '../../modules/reporting/csvExports.ts';
import { TAX_INTERVALS, taxReportCsv, type TaxInterval } from '../../modules/reporting/domain/taxReport.ts';
import { taxReport } from '../../modules/reporting/taxReport.ts';
import { CliUsageError, requireOption, type CliCommand, type CliContext } from '../command.ts';
import { organizationOption } from './organizationOption.ts';

type Written = { kind: ExportKind; organization_id: string; file: string; rows: number; from: number | null; to: number | null };

const WHAT: Record<ExportKind, string> = {
  sales: 'checkout sessions that completed in the range (by completion time)',
  invoices: "invoices (checkouts' and subscriptions') created in the range",
  customers: 'customers made in the range, a line per currency they paid in',
};

const SINGULAR: Record<ExportKind, string> = { sales: 'sale', invoices: 'invoice', customers: 'customer line' };

/** --from and --to as the export's range; a bad date is a usage error naming its option. */
async function rangeOption({ services, options }: CliContext, organizationId: string) {
  const given = { from: typeof options.from === 'string' ? options.from : undefined, to: typeof options.to === 'string' ? options.to : undefined };
  try {
    return await exportRange(services.store, organizationId, given);
  } catch (error) {
    if (error instanceof ExportRangeError) throw new CliUsageError(`--${error.field}: ${error.message}`);
    throw error;
  }
}

type TaxWritten = { kind: 'tax'; organization_id: string; file: string; rows: number; interval: TaxInterval; from: number | null; to: number | null };

/** `commerce export tax`: the tax report's CSV (GET /api/exports/tax.csv), written to a file. */
const taxExportCommand: CliCommand = {
  path: ['export', 'tax'],
  usage: 'export tax --out FILE [--from DATE|UNIX] [--to DATE|UNIX] [--interval day|month|quarter|year] [--mode test|live] [--org ORG]',
  description: "Write the tax report as CSV: per period, country, rate, taxability reason and currency, the net and tax of paid invoices less their credit notes. Periods and dates are in the organization's time zone.",
  options: { org: 'string', from: 'string', to: 'string', out: 'string', interval: 'string', mode: 'string' },
  async run(ctx) {
    const { services, options } = ctx;
    const file = requireOption(options, 'out');
    const interval = typeof options.interval === 'string' ? options.interval : 'month';
    if (!(TAX_INTERVALS as readonly string[]).includes(interval)) throw new CliUsageError(`--interval: must be one of ${TAX_INTERVALS.join(', ')}.`);
    const mode = typeof options.mode === 'string' ? options.mode : undefined;
    if (mode !== undefined && mode !== 'test' && mode !== 'live') throw new CliUsageError('--mode: must be test or live.');
    const organizationId = await organizationOption(ctx, 'export tax');
    const range = await rangeOption(ctx, organizationId);
    const report = await taxReport(services, organizationId, { range, interval: interval as TaxInterval, mode });
    await writeFile(file, taxReportCsv(report.data));
    return { kind: 'tax', organization_id: organizationId, file, rows: report.data.length, interval: interval as TaxInterval, from: range.from ?? null, to: range.to ?? null } satisfies TaxWritten;
  },
  format: (r: TaxWritten) => `wrote ${r.rows} tax report ${r.rows === 1 ? 'row' : 'rows'} of ${r.organization_id} to ${r.file}`,
};

/** `commerce export sales|invoices|customers|tax`: the dashboard's CSV exports, written to a file as they are read. */
export const exportCommands: CliCommand[] = [...EXPORT_KINDS.map((kind): CliCommand => ({
  path: ['export', kind],
  usage: `export ${kind} --out FILE [--from DATE|UNIX] [--to DATE|UNIX] [--org ORG]`,
  description: `Write the ${WHAT[kind]} as CSV. Dates are days in the organization's time zone, --to included; --org may be left out when there is one organization.`,
  options: { org: 'string', from: 'string', to: 'string', out: 'string' },
  async run(ctx) {
    const { services, options } = ctx;
    const file = requireOption(options, 'out');
    const organizationId = await organizationOption(ctx, `export ${kind}`);
    const range = await rangeOption(ctx, organizationId);
    let rows = 0;
    await pipeline(Readable.from(csvChunks(kind, services.readStore, organizationId, range, (n) => (rows += n))), createWriteStream(file));
    return { kind, organization_id: organizationId, file, rows, from: range.from ?? null, to: range.to ?? null } satisfies Written;
  },
  format: (r: Written) => `wrote ${r.rows} ${r.rows === 1 ? SINGULAR[r.kind] : r.kind} of ${r.organization_id} to ${r.file}`,
})), taxExportCommand];
