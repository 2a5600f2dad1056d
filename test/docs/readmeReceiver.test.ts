import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';

const readme = readFileSync(join(import.meta.dirname, '../../README.md'), 'utf8');

test("the README's example servers listen on loopback only, not on every interface", () => {
  const listens = [...readme.matchAll(/\.listen\(([^)]*)\)/g)].map((m) => m[1]!);
  expect(listens.length).toBeGreaterThan(0);
  for (const args of listens) expect(args, `.listen(${args})`).toMatch(/^\s*\d+\s*,\s*['"]127\.0\.0\.1['"]\s*$/);
});
