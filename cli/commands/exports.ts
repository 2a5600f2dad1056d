import { createWriteStream } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { csvChunks, EXPORT_KINDS, exportRange, ExportRangeError, type ExportKind } from '../../modules/reporting/csvExports.ts';
import { CliUsageError, requireOption, type CliCommand } from '../command.ts';
import { organizationOption } from './organizationOption.ts';

type Written = { kind: ExportKind; organization_id: string; file: string; rows: number; from: number | null; to: number | null };

const WHAT: Record<ExportKind, string> = {
  sales: 'checkout sessions that completed in the range (by completion time)',
  invoices: "invoices (checkouts' and subscriptions') created in the range",
  customers: 'customers made in the range, a line per currency they paid in',
};

const SINGULAR: Record<ExportKind, string> = { sales: 'sale', invoices: 'invoice', customers: 'customer line' };

/** `commerce export sales|invoices`: the dashboard's CSV exports, written to a file as they are read. */
export const exportCommands: CliCommand[] = EXPORT_KINDS.map((kind) => ({
  path: ['export', kind],
  usage: `export ${kind} --out FILE [--from DATE|UNIX] [--to DATE|UNIX] [--org ORG]`,
  description: `Write the ${WHAT[kind]} as CSV. Dates are days in the organization's time zone, --to included; --org may be left out when there is one organization.`,
  options: { org: 'string', from: 'string', to: 'string', out: 'string' },
  async run(ctx) {
    const { services, options } = ctx;
    const file = requireOption(options, 'out');
    const organizationId = await organizationOption(ctx, `export ${kind}`);
    const given = { from: typeof options.from === 'string' ? options.from : undefined, to: typeof options.to === 'string' ? options.to : undefined };
    let range;
    try {
      range = await exportRange(services.store, organizationId, given);
    } catch (error) {
      if (error instanceof ExportRangeError) throw new CliUsageError(`--${error.field}: ${error.message}`);
      throw error;
    }
    let rows = 0;
    await pipeline(Readable.from(csvChunks(kind, services.readStore, organizationId, range, (n) => (rows += n))), createWriteStream(file));
    return { kind, organization_id: organizationId, file, rows, from: range.from ?? null, to: range.to ?? null } satisfies Written;
  },
  format: (r: Written) => `wrote ${r.rows} ${r.rows === 1 ? SINGULAR[r.kind] : r.kind} of ${r.organization_id} to ${r.file}`,
}));
