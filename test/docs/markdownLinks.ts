import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';

/** A markdown link this repository's docs make to one of its own files, as written. */
export type LocalLink = { file: string; line: number; target: string };

/** Markdown outside fenced code blocks, with inline code spans blanked (same length, so lines stay put). */
function proseLines(markdown: string): string[] {
  let fence: string | null = null;
  return markdown.split('\n').map((line) => {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      return '';
    }
    if (opener) {
      fence = opener;
      return '';
    }
    return line.replace(/(`+)[\s\S]*?\1/g, (code) => ' '.repeat(code.length));
  });
}

/** GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes, repeats numbered -1, -2… */
export function headingAnchors(markdown: string): Set<string> {
  const anchors = new Set<string>();
  const seen = new Map<string, number>();
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (fence !== null) {
      if (opener && opener[0] === fence[0] && opener.length >= fence.length) fence = null;
      continue;
    }
    if (opener) {
      fence = opener;
      continue;
    }
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1];
    if (heading === undefined) continue;
    const base = heading
      .toLowerCase()
      .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
      .replace(/ /g, '-');
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    anchors.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const id of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) anchors.add(id[1]!);
  return anchors;
}

/** Relative links and same-page anchors of a markdown file (external URLs are not ours to check). */
export function localLinks(file: string, markdown: string): LocalLink[] {
  const links: LocalLink[] = [];
  proseLines(markdown).forEach((text, i) => {
    for (const m of text.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)) {
      const target = m[1]!;
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      links.push({ file, line: i + 1, target });
    }
  });
  return links;
}

/** Why a link does not resolve, or null when its file (and anchor, in a markdown file) exists. */
export function brokenReason(link: LocalLink, read: (path: string) => string = (p) => readFileSync(p, 'utf8')): string | null {
  const [path = '', anchor] = link.target.split('#', 2) as [string, string | undefined];
  const resolved = path === '' ? link.file : resolve(dirname(link.file), decodeURI(path));
  if (!existsSync(resolved)) return `no file ${relative(process.cwd(), resolved)}`;
  if (anchor === undefined || anchor === '') return null;
  if (statSync(resolved).isDirectory() || !resolved.endsWith('.md')) return `anchor #${anchor} on a file that is not markdown`;
  return headingAnchors(read(resolved)).has(decodeURIComponent(anchor).toLowerCase()) ? null : `no heading #${anchor} in ${relative(process.cwd(), resolved)}`;
}
