import type { CliCommand } from './command.ts';

const ENVIRONMENT = 'Environment: DATA_DIR (default ./data), PORT, HOST, BASE_URL,\nEVENTSTORE_URL + MONGODB_URL; see the README.';

/** Help reads in a terminal of 80 columns: descriptions wrap to it; a long usage keeps its line. */
const COLUMNS = 80;
/** Where descriptions start in a list; a longer usage puts its description on the next line. */
const DESCRIPTION_AT = 32;

/** `text` in lines of at most `width` characters, broken at spaces (a longer word keeps its line). */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}

function commandList(commands: CliCommand[]): string[] {
  const indent = ' '.repeat(DESCRIPTION_AT);
  return commands.flatMap((c) => {
    const usage = `  ${c.usage}`;
    const description = wrap(c.description, COLUMNS - DESCRIPTION_AT).map((l) => `${indent}${l}`);
    if (usage.length + 2 > DESCRIPTION_AT || description.length === 0) return [usage, ...description];
    return [`${usage.padEnd(DESCRIPTION_AT)}${description[0]!.trimStart()}`, ...description.slice(1)];
  });
}

/** `commerce api-key --help`: the commands under one first word; without a group, every command. */
export function groupHelp(group: string | null, commands: CliCommand[]): string {
  return [`usage: commerce ${group ? `${group} ` : ''}<command> [options] [--json]`, '', ...commandList(commands), '', ENVIRONMENT].join('\n');
}

/** `commerce --help`: every command. */
export const generalHelp = (commands: CliCommand[]) => groupHelp(null, commands);

/** `commerce import --help`: one command's usage, what it does and its options. */
export function commandHelp(command: CliCommand): string {
  // serve and the workers run until a signal and print no result, so --json means nothing to them.
  const json = command.longRunning ? '' : ' [--json]';
  return [
    `usage: commerce ${command.usage}${json}`,
    '',
    ...wrap(command.description, COLUMNS - 2).map((l) => `  ${l}`),
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
