import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig } from '../app/config.ts';
import { compose } from '../app/compose.ts';
import { catchUpProjections } from '../projections/projectionRunner.ts';
import { allProjections } from '../projections/allProjections.ts';
import { DomainError } from '../domain/shared/domainError.ts';
import { CliUsageError, type CliCommand, type CliContext } from './command.ts';
import { allCommands } from './commands/index.ts';

function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | null {
  let best: CliCommand | null = null;
  for (const command of allCommands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : null;
}

function help(): string {
  const width = Math.max(...allCommands.map((c) => c.usage.length));
  return [
    'usage: commerce <command> [options] [--json]',
    '',
    ...allCommands.map((c) => `  ${c.usage.padEnd(width)}  ${c.description}`),
    '',
    'Environment: DATA_DIR (default ./data), PORT, HOST, BASE_URL, EVENTSTORE_URL + MONGODB_URL; see the README.',
  ].join('\n');
}

async function main(argv: string[]): Promise<number> {
  if (argv.length === 0 || argv[0] === 'help' || argv[0] === '--help' || argv[0] === '-h') {
    console.log(help());
    return 0;
  }
  const found = findCommand(argv);
  if (!found) {
    console.error(`commerce: unknown command '${argv.join(' ')}'\n\n${help()}`);
    return 2;
  }
  const { command, rest } = found;
  const optionSpec = Object.fromEntries(
    Object.entries({ ...(command.options ?? {}), json: 'boolean' as const }).map(([name, type]) => [name, { type }]),
  );
  const { values, positionals } = parseArgs({ args: rest, options: optionSpec, allowPositionals: true, strict: true });
  const json = values.json === true;
  const config = loadConfig();
  if (command.longRunning) {
    await command.run({ options: values, args: positionals } as unknown as CliContext);
    return 0;
  }
  if (command.standalone) {
    const result = await command.run({
      options: values,
      args: positionals,
      interactive: !json && process.stderr.isTTY === true,
    } as unknown as CliContext);
    console.log(json ? JSON.stringify(result) : (command.format as (r: unknown) => string)(result));
    return 0;
  }
  const services = await compose(config, {
    runProjections: false,
    logger: { error: (o, m) => console.error(m, o), info: () => undefined },
  });
  const correlationId = `cli_${randomUUID()}`;
  try {
    const ctx: CliContext = {
      services,
      options: values,
      args: positionals,
      interactive: !json && process.stdout.isTTY === true,
      commandContext: (organizationId = null) => ({
        store: services.store,
        metadata: {
          correlation_id: correlationId,
          actor: { type: 'cli' },
          organization_id: organizationId,
          occurred_at: Math.floor(services.clock() / 1000),
        },
      }),
      catchUp: () => catchUpProjections(services.store, services.readStore, allProjections),
    };
    const result = await command.run(ctx);
    // Leave the read models current for whoever reads next (a server that is not running, say).
    await ctx.catchUp();
    console.log(json ? JSON.stringify(result) : (command.format as (r: unknown) => string)(result));
    return 0;
  } finally {
    await services.close();
  }
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof ConfigError || error instanceof CliUsageError) {
      console.error(`commerce: ${error.message}`);
      process.exitCode = 2;
    } else if (error instanceof DomainError) {
      // One line per field error (an import lists every problem of its file), path first.
      console.error(`commerce: ${error.message}`);
      for (const [field, messages] of Object.entries(error.fields ?? {})) {
        for (const message of messages) console.error(`  ${field}: ${message}`);
      }
      process.exitCode = 1;
    } else if (error instanceof Error && 'code' in error && error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      console.error(`commerce: ${error.message}`);
      process.exitCode = 2;
    } else {
      console.error(`commerce: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  },
);
