import { readdirSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { commandPaths, commandsIn, loadCommands } from '../../cli/commands/index.ts';

/** The CLI finds a command by the index's words and loads only its file: the index must name each exactly once. */
describe('the CLI command index', () => {
  it('names every command the files of cli/commands define, each once, and loads each from its file', async () => {
    const dir = new URL('../../cli/commands/', import.meta.url);
    const files = readdirSync(dir).filter((f) => f.endsWith('.ts') && f !== 'index.ts');
    const defined = new Set<string>();
    for (const f of files) for (const c of commandsIn(await import(new URL(f, dir).href))) defined.add(c.path.join(' '));
    const indexed = commandPaths.map((p) => p.join(' '));
    expect(new Set(indexed).size).toBe(indexed.length);
    expect([...defined].sort()).toEqual([...indexed].sort());
    expect((await loadCommands()).map((c) => c.path.join(' '))).toEqual(indexed);
  });
});
