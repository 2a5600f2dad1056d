import { DomainError } from '../domain/domainError.ts';

/** One problem with an import file: where (its path in the file, `offers[1].slug`) and what. */
export type ImportIssue = { path: string; message: string };

/**
 * A path in the file as people write it in jq or JavaScript: `products[1].plans[0].name`.
 * Takes a zod issue's path, or a DomainError's dotted field (`tiers.0.price`) split on dots.
 */
export function filePath(segments: ReadonlyArray<PropertyKey>): string {
  let path = '';
  for (const segment of segments) {
    const text = String(segment);
    path += /^\d+$/.test(text) ? `[${text}]` : path === '' ? text : `.${text}`;
  }
  return path;
}

/**
 * Thrown with every issue of a file: found by validation (`invalid`: the file alone is wrong) or
 * refused against the current state (`refused`: an archived offer published again, a slug another
 * organization owns). Nothing has been written when it is.
 */
export class ImportValidationError extends DomainError {
  constructor(
    readonly issues: ImportIssue[],
    kind: 'invalid' | 'refused' = 'invalid',
  ) {
    const fields: Record<string, string[]> = {};
    for (const issue of issues) (fields[issue.path || '(file)'] ??= []).push(issue.message);
    const count = `${issues.length} ${kind === 'invalid' ? 'error' : 'refusal'}${issues.length === 1 ? '' : 's'}`;
    super(
      'invalid',
      'import_invalid',
      kind === 'invalid'
        ? `The import file is invalid (${count}); nothing was imported.`
        : `The import file cannot be applied as it stands (${count}); nothing was imported.`,
      fields,
    );
  }
}

/** How a section names one of its items in a refusal: `Offer critique-monthly`, at `offers[1].slug`. */
export type ItemName<T> = (item: T) => { label: string; field: string };

/**
 * Applies a section's items one by one. A refusal (a DomainError from a decider) becomes an issue
 * at the item's path, named and followed by the section's hint for its code (how to go on); the
 * other items are still tried, so one run lists every refusal. Throws them all at the end.
 */
export async function applyEach<T, R>(
  section: string,
  items: readonly T[],
  name: ItemName<T>,
  hints: Readonly<Record<string, string>>,
  apply: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = [];
  const issues: ImportIssue[] = [];
  for (const [i, item] of items.entries()) {
    try {
      results.push(await apply(item, i));
    } catch (error) {
      if (error instanceof ImportValidationError) issues.push(...error.issues);
      else if (isRefusal(error)) issues.push(...refusal(section, i, name(item), hints, error));
      else throw error;
    }
  }
  if (issues.length > 0) throw new ImportValidationError(issues, 'refused');
  return results;
}

/** A conflict is a refusal too, except a lost race: that one the import retries whole. */
const isRefusal = (error: unknown): error is DomainError => error instanceof DomainError && error.code !== 'concurrent_update';

function refusal(section: string, index: number, name: { label: string; field: string }, hints: Readonly<Record<string, string>>, error: DomainError): ImportIssue[] {
  const hint = hints[error.code] ? ` ${hints[error.code]}` : '';
  const fields = Object.entries(error.fields ?? {});
  if (fields.length === 0) return [{ path: filePath([section, index, name.field]), message: `${name.label}: ${error.message}${hint}` }];
  return fields.flatMap(([field, messages]) =>
    messages.map((message) => ({ path: filePath([section, index, ...field.split('.')]), message: `${name.label}: ${message}${hint}` })),
  );
}
