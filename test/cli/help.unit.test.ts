import { describe, expect, it } from 'vitest';
import { loadCommands } from '../../cli/commands/index.ts';
import { commandHelp, generalHelp, groupHelp } from '../../cli/help.ts';

const allCommands = await loadCommands();

const usages = new Set(allCommands.map((c) => `  ${c.usage}`));

/** Every line fits 80 columns, but a command's usage, which keeps its line whole and unpadded. */
function expectReadable(text: string) {
  for (const line of text.split('\n')) {
    expect(line, 'no trailing spaces').toBe(line.trimEnd());
    if (!usages.has(line) && !line.startsWith('usage: commerce ')) expect(line.length, line).toBeLessThanOrEqual(80);
  }
}

describe('CLI help in a terminal', () => {
  it('wraps the command list at 80 columns and keeps every word of every description', () => {
    const help = generalHelp(allCommands);
    expectReadable(help);
    const words = help.split(/\s+/).join(' ');
    for (const c of allCommands) expect(words).toContain(c.description.split(/\s+/).join(' '));
    expectReadable(groupHelp('api-key', allCommands.filter((c) => c.path[0] === 'api-key')));
  });

  it("wraps one command's description the same way", () => {
    for (const c of allCommands) expectReadable(commandHelp(c));
  });
});
