#!/usr/bin/env node
// Rewrites relative import specifiers after the layer moves of issue 16 (old path → new path).
// Re-runnable: a specifier is touched only when it no longer resolves, so running it after
// merging a branch that still imports the old paths fixes just that branch's files.
//   node scripts/rewriteImports.mjs          rewrite in place, list the files changed
//   node scripts/rewriteImports.mjs --check  list what would change, exit 1 if anything would
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository-relative paths: where each module was, and where it lives now. */
export const MOVES = {
  // The event store port and its adapters, reached by commands/ and projections/ alike.
  'commands/eventStore.ts': 'platform/eventStore/eventStore.ts',
  'commands/appendOneByOne.ts': 'platform/eventStore/appendOneByOne.ts',
  'commands/copyEvents.ts': 'platform/eventStore/copyEvents.ts',
  'commands/sqlite/sqliteEventStore.ts': 'platform/eventStore/sqlite/sqliteEventStore.ts',
  'commands/esdb/esdbEventStore.ts': 'platform/eventStore/esdb/esdbEventStore.ts',
  'commands/esdb/esdbMapping.ts': 'platform/eventStore/esdb/esdbMapping.ts',
  // The read store port and its adapters.
  'projections/readStore.ts': 'platform/readStore/readStore.ts',
  'projections/sqlite/sqliteReadStore.ts': 'platform/readStore/sqlite/sqliteReadStore.ts',
  'projections/mongodb/mongoReadStore.ts': 'platform/readStore/mongodb/mongoReadStore.ts',
  'projections/mongodb/mongoMapping.ts': 'platform/readStore/mongodb/mongoMapping.ts',
  // SQLite plumbing both SQLite adapters (and backups) open files through.
  'commands/sqlite/openDatabase.ts': 'platform/sqlite/openDatabase.ts',
  'commands/sqlite/backupDataDir.ts': 'platform/sqlite/backupDataDir.ts',
  // Helpers with no domain rules in them, used across layers.
  'domain/shared/deepFreeze.ts': 'platform/lib/deepFreeze.ts',
  'domain/shared/generations.ts': 'platform/lib/generations.ts',
  'commands/routeKeys.ts': 'platform/lib/routeKeys.ts',
  'commands/checkout/offerRef.ts': 'platform/lib/offerRef.ts',
  // Tests mirror the tree.
  'test/esdb/esdbEventStore.unit.test.ts': 'test/eventStore/esdb/esdbEventStore.unit.test.ts',
  'test/esdb/esdbMapping.unit.test.ts': 'test/eventStore/esdb/esdbMapping.unit.test.ts',
  'test/mongodb/mongoMapping.unit.test.ts': 'test/readStore/mongodb/mongoMapping.unit.test.ts',
  'test/mongodb/mongoReadStore.unit.test.ts': 'test/readStore/mongodb/mongoReadStore.unit.test.ts',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'test-results', 'data']);
const toAbs = (p) => join(root, ...p.split('/'));
const toRel = (abs) => relative(root, abs).split(sep).join('/');
const byOld = new Map(Object.entries(MOVES).map(([o, n]) => [toAbs(o), toAbs(n)]));
const byNew = new Map(Object.entries(MOVES).map(([o, n]) => [toAbs(n), toAbs(o)]));

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(c|m)?(t|j)sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const isFile = (p) => existsSync(p) && statSync(p).isFile();

function specifierFor(fromFile, target) {
  let spec = relative(dirname(fromFile), target).split(sep).join('/');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec;
}

/** The new specifier for `spec` in `file`, or null when it resolves already (or to nothing we know). */
function rewrite(file, spec) {
  const here = resolve(dirname(file), spec);
  if (isFile(here)) return null;
  if (byOld.has(here)) return specifierFor(file, byOld.get(here));
  // A moved file still carrying specifiers written from where it used to be.
  const oldSelf = byNew.get(file);
  if (oldSelf) {
    const before = resolve(dirname(oldSelf), spec);
    const target = byOld.get(before) ?? before;
    if (isFile(target)) return specifierFor(file, target);
  }
  return null;
}

// Repository-relative mentions (`join(process.cwd(), 'commands/…')`, "see commands/….ts" in a
// comment): an old path standing on its own, not the tail of a longer path.
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const bare = new RegExp(`(?<![\\w./-])(${Object.keys(MOVES).map(escape).join('|')})(?![\\w/-])`, 'g');

const check = process.argv.includes('--check');
const changed = [];
const self = fileURLToPath(import.meta.url);
for (const file of sourceFiles(root)) {
  if (file === self) continue; // the map names the old paths on purpose
  const text = readFileSync(file, 'utf8');
  const next = text.replace(/(['"`])(\.{1,2}\/[^'"`\n]*?)\1/g, (whole, quote, spec) => {
    const to = rewrite(file, spec);
    return to ? `${quote}${to}${quote}` : whole;
  }).replace(bare, (old) => MOVES[old]);
  if (next !== text) {
    changed.push(toRel(file));
    if (!check) writeFileSync(file, next);
  }
}
for (const f of changed) console.log(`${check ? 'would rewrite' : 'rewrote'} ${f}`);
if (check && changed.length) process.exitCode = 1;
