import { parseArgs } from 'node:util';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ConfigError, isProductionProfile, loadConfig, type Config } from '../platform/runtime/config.ts';
import { DomainError } from '../platform/domain/domainError.ts';
import { CliUsageError, type CliCommand, type CliContext } from './command.ts';
import { commandPaths, loadCommand, loadCommands } from './commands/index.ts';
import { commandHelp, generalHelp, groupHelp, optionNames } from './help.ts';
import { nearest } from './nearestCommand.ts';

/** The words of the command `argv` starts with (the longest that matches), and the rest. */
function findCommand(argv: string[]): { path: string[]; rest: string[] } | null {
  let best: string[] | null = null;
  for (const path of commandPaths) {
    const matches = path.every((word, i) => argv[i] === word);
    if (matches && (!best || path.length > best.length)) best = path;
  }
  return best ? { path: best, rest: argv.slice(best.length) } : null;
}

const isHelpFlag = (word: string) => word === '--help' || word === '-h';

/** The words before any `--`: after it, everything is an argument. */
const beforeDashes = (argv: string[]) => argv.slice(0, argv.includes('--') ? argv.indexOf('--') : argv.length);

/** The arguments without --help/-h, and whether one was there. */
function takeHelpFlag(argv: string[]): { words: string[]; help: boolean } {
  const before = beforeDashes(argv);
  return { words: [...before.filter((w) => !isHelpFlag(w)), ...argv.slice(before.length)], help: before.some(isHelpFlag) };
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

/** No command matched: a first word with subcommands (`api-key`) lists them, anything else names the nearest command. */
async function unknownCommand(words: string[], help: boolean): Promise<number> {
  const groupPaths = commandPaths.filter((p) => p.length > 1 && p[0] === words[0]);
  if (groupPaths.length === 0) {
    const firstWords = [...new Set(commandPaths.map((p) => p[0]!))];
    const word = nearest(words[0]!, firstWords);
    // `prodcut list` → `product list`.
    const meant = word ? (commandPaths.find((p) => p[0] === word && p[1] === words[1]) ?? commandPaths.find((p) => p[0] === word && p.length === 1)) : null;
    const suggestion = meant ? `commerce ${meant.join(' ')}` : word ? `commerce ${word}` : undefined;
    throw new CliUsageError(
      `unknown command '${words[0]}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
      `${SHORT_USAGE}`,
      suggestion,
    );
  }
  const group = await loadCommands(groupPaths);
  if (help && words.length === 1) {
    console.log(groupHelp(words[0]!, group));
    return 0;
  }
  if (words.length === 1) throw new CliUsageError(`'${words[0]}' needs one of: ${group.map((c) => c.path[1]).join(', ')}`, groupHelp(words[0]!, group));
  const second = nearest(words[1]!, group.map((c) => c.path[1]!));
  const suggestion = second ? `commerce ${words[0]} ${second}` : undefined;
  throw new CliUsageError(
    `unknown command '${words.slice(0, 2).join(' ')}'${suggestion ? `; did you mean '${suggestion}'?` : ''}`,
    groupHelp(words[0]!, group),
    suggestion,
  );
}

/** `commerce` alone: where to start, not all 30 commands (`commerce help` lists them). */
const SHORT_USAGE = [
  'usage: commerce <command> [options] [--json]',
  '',
  '  commerce serve            run the service (what npm start runs)',
  '  commerce demo             a demo shop: organization, API key, products, an offer',
  '  commerce import FILE --org ORG',
  '  commerce product list     and offer, session, api-key, org, workflow list',
  '',
  'commerce help lists every command; commerce <command> --help shows one.',
].join('\n');

/**
 * The embedded data directory this run will create, or null: run from another folder, the CLI would
 * work on a fresh ./data whose tokens the server on the real one answers 401 (demo creates one on purpose).
 */
function newDataDir(command: CliCommand, config: Config): string | null {
  if (command.path[0] === 'demo' || isProductionProfile(config)) return null;
  const dir = resolve(config.DATA_DIR);
  return existsSync(join(dir, 'commerce.db')) ? null : dir;
}

/** Said once the stores opened (a refused configuration creates nothing, and says only that). */
function warnOfNewDataDir(command: CliCommand, dir: string, json: boolean): void {
  const message = `no data here yet: created a new data directory at ${dir}. If your server runs on another one, give the CLI the same: DATA_DIR=/path/to/its/data commerce ${command.path.join(' ')} …`;
  console.error(json ? JSON.stringify({ warning: 'new_data_dir', message, data_dir: dir }) : `commerce: ${message}`);
}

async function main(argv: string[]): Promise<number> {
  // `commerce help import` is `commerce import --help`.
  const { words, help } = takeHelpFlag(argv[0] === 'help' ? [...argv.slice(1), '--help'] : argv);
  if (words.length === 0 && !help) {
    console.error(SHORT_USAGE);
    return 2;
  }
  if (words.length === 0) {
    console.log(generalHelp(await loadCommands()));
    return 0;
  }
  const found = findCommand(words);
  if (!found) return unknownCommand(words, help);
  const command = await loadCommand(found.path);
  if (help) {
    console.log(commandHelp(command));
    return 0;
  }
  const { values, positionals } = parseOptions(command, found.rest);
  const json = values.json === true;
  const config = loadConfig();
  if (command.longRunning || command.standalone) {
    const result = await command.run({ options: values, args: positionals, interactive: !json && process.stderr.isTTY === true } as unknown as CliContext);
    if (command.standalone) console.log(json ? JSON.stringify(result) : (command.format as (r: unknown) => string)(result));
    return 0;
  }
  const freshDir = newDataDir(command, config);
  // The whole service, loaded only for a command that runs on it.
  const [{ compose }, { catchUpProjections }, { allProjections }] = await Promise.all([
    import('../app/compose.ts'),
    import('../platform/es/projectionRunner.ts'),
    import('../app/allProjections.ts'),
  ]);
  const services = await compose(config, {
    runProjections: false,
    logger: { error: (o, m) => console.error(m, o), info: () => undefined },
  });
  if (freshDir !== null) warnOfNewDataDir(command, freshDir, json);
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

/** With --json (before any `--`), errors are one JSON object on stderr too: the API's error shape. */
const jsonErrors = (argv: string[]) => beforeDashes(argv).includes('--json');

function report(error: unknown, json: boolean): number {
  if (error instanceof ConfigError || error instanceof CliUsageError) {
    const code = error instanceof ConfigError ? 'invalid_configuration' : 'usage_error';
    const suggestion = error instanceof CliUsageError ? error.suggestion : undefined;
    if (json) console.error(JSON.stringify({ message: error.message, code, ...(suggestion ? { suggestion } : {}) }));
    else console.error(`commerce: ${error.message}${error instanceof CliUsageError && error.help ? `\n\n${error.help}` : ''}`);
    return 2;
  }
  if (error instanceof DomainError) {
    if (json) {
      console.error(JSON.stringify({ message: error.message, code: error.code, ...(error.fields ? { errors: error.fields } : {}) }));
      return 1;
    }
    // One line per field error (an import lists every problem of its file), path first.
    console.error(`commerce: ${error.message}`);
    for (const [field, messages] of Object.entries(error.fields ?? {})) {
      for (const message of messages) console.error(`  ${field}: ${message}`);
    }
    return 1;
  }
  const message = error instanceof Error ? error.message : String(error);
  console.error(json ? JSON.stringify({ message, code: 'error' }) : `commerce: ${message}`);
  return 1;
}

const argv = process.argv.slice(2);
main(argv).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = report(error, jsonErrors(argv));
  },
);
