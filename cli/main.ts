import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { ConfigError, loadConfig } from '../app/config.ts';
import { compose } from '../app/compose.ts';
import { catchUpProjections } from '../projections/projectionRunner.ts';
import { allProjections } from '../projections/allProjections.ts';
import { DomainError } from '../domain/shared/domainError.ts';
import { CliUsageError, type CliCommand, type CliContext } from './command.ts';
import { allCommands } from './commands/index.ts';
import { commandHelp, generalHelp, groupHelp, optionNames } from './help.ts';

function findCommand(argv: string[]): { command: CliCommand; rest: string[] } | null {
  let best: CliCommand | null = null;
  for (const command of allCommands) {
    const matches = command.path.every((word, i) => argv[i] === word);
    if (matches && (!best || command.path.length > best.path.length)) best = command;
  }
  return best ? { command: best, rest: argv.slice(best.path.length) } : null;
}

const isHelpFlag = (word: string) => word === '--help' || word === '-h';

/** The arguments without --help/-h, and whether one was there (after a `--` everything is an argument). */
function takeHelpFlag(argv: string[]): { words: string[]; help: boolean } {
  const end = argv.includes('--') ? argv.indexOf('--') : argv.length;
  const before = argv.slice(0, end);
  return { words: [...before.filter((w) => !isHelpFlag(w)), ...argv.slice(end)], help: before.some(isHelpFlag) };
}

/** Parses a command's options; node's parse errors become usage errors that say what the command takes. */
function parseOptions(command: CliCommand, rest: string[]) {
  const name = command.path.join(' ');
  const types = { ...(command.options ?? {}), ...(command.longRunning ? {} : { json: 'boolean' as const }) };
  const options = Object.fromEntries(Object.entries(types).map(([option, type]) => [option, { type }]));
  let parsed;
  try {
    parsed = parseArgs({ args: rest, options, allowPositionals: true, strict: true });
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (typeof code !== 'string' || !code.startsWith('ERR_PARSE_ARGS')) throw error;
    const message = (error as Error).message;
    const option = /'(-[^' ]*)/.exec(message)?.[1] ?? '';
    if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') {
      throw new CliUsageError(`${name}: unknown option ${option}; it takes ${optionNames(command)} (see commerce ${name} --help)`);
    }
    if (/argument missing/.test(message)) throw new CliUsageError(`${name}: ${option} needs a value`);
    throw new CliUsageError(`${name}: ${message}`);
  }
  const max = command.maxArgs ?? 0;
  if (parsed.positionals.length > max) {
    throw new CliUsageError(`${name}: unexpected argument '${parsed.positionals[max]}'; usage: commerce ${command.usage}`);
  }
  return parsed;
}

/** No command matched: a first word with subcommands (`api-key`) lists them, anything else gets the whole list. */
function unknownCommand(words: string[], help: boolean): number {
  const group = allCommands.filter((c) => c.path.length > 1 && c.path[0] === words[0]);
  if (group.length === 0) {
    console.error(`commerce: unknown command '${words[0]}'\n\n${generalHelp(allCommands)}`);
    return 2;
  }
  if (help && words.length === 1) {
    console.log(groupHelp(words[0]!, group));
    return 0;
  }
  const problem =
    words.length === 1
      ? `'${words[0]}' needs one of: ${group.map((c) => c.path[1]).join(', ')}`
      : `unknown command '${words.slice(0, 2).join(' ')}'`;
  console.error(`commerce: ${problem}\n\n${groupHelp(words[0]!, group)}`);
  return 2;
}

async function main(argv: string[]): Promise<number> {
  // `commerce help import` is `commerce import --help`.
  const { words, help } = takeHelpFlag(argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv);
  if (words.length === 0) {
    console.log(generalHelp(allCommands));
    return 0;
  }
  const found = findCommand(words);
  if (!found) return unknownCommand(words, help);
  if (help) {
    console.log(commandHelp(found.command));
    return 0;
  }
  const { command, rest } = found;
  const { values, positionals } = parseOptions(command, rest);
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
    } else {
      console.error(`commerce: ${error instanceof Error ? error.message : String(error)}`);
      process.exitCode = 1;
    }
  },
);
