#!/usr/bin/env node
// Runs npm scripts side by side and fails if any fails: the typecheck and the lint each keep
// one core busy, so on two cores together they take the time of the longer one.
import { spawn } from 'node:child_process';

const names = process.argv.slice(2);
const results = await Promise.all(
  names.map(
    (name) =>
      new Promise((resolve) => {
        const child = spawn('npm', ['run', '--silent', name], { stdio: 'inherit' });
        child.on('exit', (code, signal) => resolve({ name, ok: code === 0, how: signal ?? code }));
      }),
  ),
);
for (const r of results.filter((r) => !r.ok)) console.error(`npm run ${r.name} failed (${r.how})`);
process.exit(results.every((r) => r.ok) ? 0 : 1);
