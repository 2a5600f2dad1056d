import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { brokenReason, headingAnchors, localLinks } from './markdownLinks.ts';

const root = join(import.meta.dirname, '../..');
const docs = readdirSync(join(root, 'docs'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => join(root, 'docs', name));
const pages = [join(root, 'README.md'), join(root, 'CHANGELOG.md'), ...docs];

describe('the README and docs/', () => {
  test('the README stays a front page: at most 12 KiB', () => {
    expect(statSync(join(root, 'README.md')).size).toBeLessThanOrEqual(12_288);
  });

  test('every relative link and anchor in README.md, CHANGELOG.md and docs/*.md resolves', () => {
    const broken = pages.flatMap((file) =>
      localLinks(file, readFileSync(file, 'utf8')).flatMap((link) => {
        const reason = brokenReason(link);
        return reason === null ? [] : [`${link.file.slice(root.length + 1)}:${link.line} (${link.target}): ${reason}`];
      }),
    );
    expect(broken).toEqual([]);
  });

  test('the README links every page under docs/', () => {
    const linked = new Set(localLinks(join(root, 'README.md'), readFileSync(join(root, 'README.md'), 'utf8')).map((l) => l.target.split('#')[0]));
    expect(docs.map((file) => file.slice(root.length + 1)).filter((page) => !linked.has(page))).toEqual([]);
  });
});

describe('the link checker itself', () => {
  const file = join(root, 'README.md');

  test('reports a missing file and a missing heading, and passes links that resolve', () => {
    const links = localLinks(file, '[a](docs/nope.md) [b](docs/api.md#no-such-heading) [c](docs/api.md#errors) [d](https://example.com/x#y)');
    expect(links.map((l) => l.target)).toEqual(['docs/nope.md', 'docs/api.md#no-such-heading', 'docs/api.md#errors']);
    expect(links.map((l) => brokenReason(l))).toEqual([expect.stringContaining('no file'), expect.stringContaining('no heading #no-such-heading'), null]);
  });

  test('ignores links inside code, and makes anchors as GitHub does', () => {
    expect(localLinks(file, '```md\n[x](missing.md)\n```\n`[y](missing.md)`')).toEqual([]);
    expect([...headingAnchors('## Public routes (no bearer)\n## Offers in `commerce import`\n## Errors\n## Errors\n```\n# not a heading\n```')]).toEqual([
      'public-routes-no-bearer',
      'offers-in-commerce-import',
      'errors',
      'errors-1',
    ]);
  });
});
