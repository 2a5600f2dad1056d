
import { DomainError, notFound } from '../../domain/shared/domainError.ts';
import { organizationExists } from '../identity/identityCommands.ts';
import { importSections } from './importSections.ts';
import type { ImportContext, ImportIssue, ImportSection } from './importSection.ts';
import { importIssueMessage } from './importIssueMessage.ts';

export type ImportResult = {
  organization_id: string;
  /** Per section present in the file: what applying it did. */
  sections: Record<string, unknown>;
};

/** Thrown with every issue of the file; nothing has been written when it is. */
export class ImportValidationError extends DomainError {
  constructor(readonly issues: ImportIssue[]) {
    const fields: Record<string, string[]> = {};
    for (const issue of issues) (fields[issue.path || '(file)'] ??= []).push(issue.message);
    super(
      'invalid',
      'import_invalid',
      `The import file is invalid (${issues.length} error${issues.length === 1 ? '' : 's'}); nothing was imported.`,
      fields,
    );
  }
}

const pathOf = (path: ReadonlyArray<PropertyKey>) => path.map(String).join('.');

/** Validates every section (alone, then their references), collecting all issues before failing. */
export function validateImport(
  input: unknown,
  sections: readonly ImportSection[] = importSections,
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
    else for (const issue of result.error.issues) issues.push({ path: pathOf([section.name, ...issue.path]), message: importIssueMessage(issue) });
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

/** Validates the whole file, then applies its sections in registry order. */
export async function runImport(
  ctx: ImportContext,
  input: unknown,
  sections: readonly ImportSection[] = importSections,
): Promise<ImportResult> {
  const file = validateImport(input, sections);
  if (!(await organizationExists(ctx.command, ctx.organizationId))) throw notFound('Organization');
  const results: Record<string, unknown> = {};
  for (const section of sections) {
    if (section.name in file) results[section.name] = await section.apply(ctx, file[section.name], file);
  }
  return { organization_id: ctx.organizationId, sections: results };
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

