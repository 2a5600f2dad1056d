import type { z } from 'zod';
import { DomainError } from '../platform/domain/domainError.ts';
import type { CommandContext } from '../platform/es/handleCommand.ts';
import type { Filter } from '../platform/readStore/readStore.ts';
import type { Services } from '../platform/runtime/services.ts';

export type CliOptions = Record<string, string | boolean | undefined>;

export type CliContext = {
  services: Services;
  options: CliOptions;
  args: string[];
  /** Event metadata for a CLI run: actor cli, one correlation id for the whole run. */
  commandContext(organizationId?: string | null): CommandContext;
  /** Brings the read models up to date (the server may be down): before reading them. */
  catchUp(): Promise<void>;
  /** True when stdout is a terminal and --json is off: progress bars may draw. */
  interactive: boolean;
};

export type CliCommand = {
  /** Words of the command, e.g. ['api-key', 'create']. */
  path: string[];
  usage: string;
  description: string;
  /** Option names and whether they take a value (string) or not (boolean). */
  options?: Record<string, 'string' | 'boolean'>;
  /** Most positional arguments (none when absent): `product archive KEY org_demo` (a forgotten --org) is refused. */
  maxArgs?: number;
  /** Opens its own services and runs until a signal (serve, workers): gets only options and args. */
  longRunning?: boolean;
  /** Opens what it needs itself (it does not run on the configured stores): gets only options and args. */
  standalone?: boolean;
  run(ctx: CliContext): Promise<unknown>;
  /** The readable form of the result; JSON is printed with --json. */
  format(result: never): string;
};

export class CliUsageError extends Error {
  override readonly name = 'CliUsageError';
  constructor(
    message: string,
    /** Printed after the message in text mode (a command list); left out of the JSON error. */
    readonly help?: string,
    /** The command meant, when a typo is near one: `commerce import`. */
    readonly suggestion?: string,
  ) {
    super(message);
  }
}

export function requireOption(options: CliOptions, name: string): string {
  const value = options[name];
  if (typeof value !== 'string' || value === '') throw new CliUsageError(`--${name} is required`);
  return value;
}

export const orgFilter = (options: CliOptions): Filter => (typeof options.org === 'string' ? { organization_id: options.org } : {});

/** `<thing> list [--org ORG]`: rows of the read models, caught up first (the server may be down). */
export const listCommand = <Row>(
  what: string,
  description: string,
  rows: (ctx: CliContext) => Promise<Row[]>,
  format: (rows: Row[]) => string,
  extra: { org?: boolean; options?: Record<string, 'string' | 'boolean'>; usage?: string } = {},
): CliCommand => ({
  path: [what, 'list'],
  usage: `${what} list${extra.org === false ? '' : ' [--org ORG]'}${extra.usage ?? ''}`,
  description,
  options: { ...(extra.org === false ? {} : { org: 'string' as const }), ...extra.options },
  async run(ctx) {
    await ctx.catchUp();
    return rows(ctx);
  },
  format: format as (rows: never) => string,
});

/** The first argument, or a usage error saying what it should be. */
export function requireArg(args: string[], message: string): string {
  const arg = args[0];
  if (!arg) throw new CliUsageError(message);
  return arg;
}

/** An option's value, undefined when absent or empty. */
export const textOption = (options: CliOptions, name: string): string | undefined =>
  typeof options[name] === 'string' && options[name] !== '' ? options[name] : undefined;

/** A date (midnight UTC) or a date and time with its zone: an ISO time without one would read as the machine's. */
const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:\d{2}))?$/;

/** Unix seconds or an ISO 8601 time as Unix seconds; NaN when it is neither. */
export const unixOrIsoSeconds = (raw: string): number => (/^\d+$/.test(raw) ? Number(raw) : ISO_TIME.test(raw) ? Date.parse(raw) / 1000 : NaN);

/** Unix seconds as ISO 8601 without milliseconds; `-` for none. */
export const isoSeconds = (s: number | null) => (s === null ? '-' : new Date(s * 1000).toISOString().replace('.000', ''));

/** A header and its rows in aligned columns; `(none)` when there are no rows, rather than a header alone. */
export const table = (header: string[], body: string[][]) => {
  if (body.length === 0) return '(none)';
  const rows = [header, ...body];
  const widths = rows[0]!.map((_c, i) => Math.max(...rows.map((r) => r[i]!.length)));
  return rows.map((r) => r.map((c, i) => c.padEnd(widths[i]!)).join('  ').trimEnd()).join('\n');
};

/** The flags as the API's body, checked by the same schema, so the CLI refuses what the API refuses. */
export function parsedBody<S extends z.ZodType>(schema: S, body: Record<string, unknown>): z.infer<S> {
  const result = schema.safeParse(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
  if (result.success) return result.data;
  const fields: Record<string, string[]> = {};
  for (const issue of result.error.issues) (fields[issue.path.join('.') || '(options)'] ??= []).push(issue.message);
  const first = Object.entries(fields)[0]!;
  throw new DomainError('invalid', 'validation_failed', `${first[0]}: ${first[1][0]}`, fields);
}
