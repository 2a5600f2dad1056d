import type { CommandContext } from '../platform/es/handleCommand.ts';
import type { Services } from '../platform/runtime/services.ts';

export type CliOptions = Record<string, string | boolean | undefined>;

/** What a CLI command gets: the services, the parsed options and the positional arguments. */
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
  /**
   * How many positional arguments it takes at most (none when absent): one more is refused, so
   * `product archive photo-basics org_demo` (a forgotten --org) is not read as the key alone.
   */
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
