
import { DomainError, notFound } from '../domain/domainError.ts';
import { WrongExpectedRevisionError } from '../eventStore/eventStore.ts';
import { organizationExists } from '../../modules/identity/index.ts';
import { stageAppends } from '../es/stagedAppends.ts';
import { filePath, ImportValidationError, type ImportIssue } from './importIssues.ts';
import { importIssueMessage } from './importIssueMessage.ts';
import type { ImportContext, ImportSection } from './importSection.ts';

export { ImportValidationError } from './importIssues.ts';

export type ImportResult = {
  organization_id: string;
  /** Per section present in the file: what applying it did. */
  sections: Record<string, unknown>;
};

/** Validates every section (alone, then their references), collecting all issues before failing. */
export function validateImport(
  input: unknown,
  sections: readonly ImportSection[],
): Record<string, unknown> {
  const known = new Set(sections.map((s) => s.name));
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw new ImportValidationError([{ path: '', message: `The file must hold a JSON object with any of: ${[...known].join(', ')}.` }]);
  }
  const issues: ImportIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!known.has(key)) issues.push({ path: key, message: `Unknown section; known sections: ${[...known].join(', ')}.` });
  }
  const parsed: Record<string, unknown> = {};
  for (const section of sections) {
    if (!(section.name in input)) continue;
    const result = section.schema.safeParse((input as Record<string, unknown>)[section.name]);
    if (result.success) parsed[section.name] = result.data;
    else for (const issue of result.error.issues) issues.push({ path: filePath([section.name, ...issue.path]), message: importIssueMessage(issue) });
  }
  if (issues.length === 0) {
    for (const section of sections) {
      if (section.name in parsed && section.check) issues.push(...section.check(parsed[section.name], parsed));
    }
  }
  if (Object.keys(parsed).length === 0 && issues.length === 0) {
    issues.push({ path: '', message: `The file has none of the sections: ${[...known].join(', ')}.` });
  }
  if (issues.length > 0) throw new ImportValidationError(issues);
  return parsed;
}

/** Another writer moved a stream the import decided on: it decides again, a few times. */
const MAX_ATTEMPTS = 3;

/**
 * Validates the whole file, then decides every section against the current state, in registry
 * order, with every append staged; only when nothing was refused are the staged appends written,
 * in one appendMany: one transaction on SQLite. On a store without one (EventStoreDB) they go
 * stream by stream in the order decided, and a run interrupted between two leaves a prefix that
 * running the same file again completes (docs/import-atomicity.md).
 */
export async function runImport(
  ctx: ImportContext,
  input: unknown,
  sections: readonly ImportSection[],
): Promise<ImportResult> {
  const file = validateImport(input, sections);
  if (!(await organizationExists(ctx.command, ctx.organizationId))) throw notFound('Organization');
  for (const section of sections) if (section.name in file) await section.prepare?.(ctx.command);
  for (let attempt = 1; ; attempt++) {
    const staged = stageAppends(ctx.command.store);
    const stagedCtx: ImportContext = { ...ctx, command: { ...ctx.command, store: staged.store } };
    const results: Record<string, unknown> = {};
    const issues: ImportIssue[] = [];
    for (const section of sections) {
      if (!(section.name in file)) continue;
      try {
        results[section.name] = await section.apply(stagedCtx, file[section.name], file);
      } catch (error) {
        // Later sections are still decided (on what the earlier ones staged): one run lists every refusal.
        if (!(error instanceof ImportValidationError)) throw error;
        issues.push(...error.issues);
      }
    }
    if (issues.length > 0) throw new ImportValidationError(issues, 'refused');
    try {
      await ctx.command.store.appendMany(staged.appends());
    } catch (error) {
      if (!(error instanceof WrongExpectedRevisionError)) throw error;
      if (attempt >= MAX_ATTEMPTS) {
        throw new DomainError('conflict', 'concurrent_update', 'Other writes changed what the file imports while it was imported. Run the import again.');
      }
      continue;
    }
    await ctx.catchUp();
    return { organization_id: ctx.organizationId, sections: results };
  }
}

/**
 * A JSON text as the import reads it: a syntax error is one issue, listed like the others. A byte
 * order mark (which some Windows editors write) is not an error.
 */
export function parseImportJson(text: string): unknown {
  const json = text.startsWith('\uFEFF') ? text.slice(1) : text;
  try {
    return JSON.parse(json) as unknown;
  } catch (error) {
    throw new ImportValidationError([{ path: '', message: `Not valid JSON${whereInText(json, (error as Error).message)}: ${(error as Error).message}` }]);
  }
}

/** ` at line L, column C` from the character position a JSON.parse message names (people edit these files by hand). */
function whereInText(text: string, message: string): string {
  const match = /at position (\d+)/.exec(message);
  if (!match || /line \d+/.test(message)) return '';
  const before = text.slice(0, Number(match[1]));
  const line = before.split('\n').length;
  return ` at line ${line}, column ${before.length - before.lastIndexOf('\n')}`;
}

