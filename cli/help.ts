import type { CliCommand } from './command.ts';

const ENVIRONMENT = 'Environment: DATA_DIR (default ./data), PORT, HOST, BASE_URL, EVENTSTORE_URL + MONGODB_URL; see the README.';

function commandList(commands: CliCommand[]): string[] {
  const width = Math.max(...commands.map((c) => c.usage.length));
  return commands.map((c) => `  ${c.usage.padEnd(width)}  ${c.description}`);
}

/** `commerce --help`: every command. */
export function generalHelp(commands: CliCommand[]): string {
  return ['usage: commerce <command> [options] [--json]', '', ...commandList(commands), '', ENVIRONMENT].join('\n');
}

/** `commerce api-key --help`: the commands under one first word. */
export function groupHelp(group: string, commands: CliCommand[]): string {
  return [`usage: commerce ${group} <command> [options] [--json]`, '', ...commandList(commands), '', ENVIRONMENT].join('\n');
}

/** `commerce import --help`: one command's usage, what it does and its options. */
export function commandHelp(command: CliCommand): string {
  // serve and the workers run until a signal and print no result, so --json means nothing to them.
  const json = command.longRunning ? '' : ' [--json]';
  return [
    `usage: commerce ${command.usage}${json}`,
    '',
    `  ${command.description}`,
    '',
    ...(command.longRunning ? [] : ['  --json  print the result as one JSON object', '']),
    ENVIRONMENT,
  ].join('\n');
}

/** The option names a command takes, as typed: `--org, --json`. */
export function optionNames(command: CliCommand): string {
  const names = [...Object.keys(command.options ?? {}), ...(command.longRunning ? [] : ['json'])];
  return names.length === 0 ? 'no options' : names.map((n) => `--${n}`).join(', ');
}
