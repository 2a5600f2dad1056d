/**
 * Zod issues as Laravel words them ("The per_page field must be at least 1."), since the error
 * bodies follow Laravel's shape and clients of such APIs show these messages to people.
 */
export function fieldMessage(field: string, code: string, params: Record<string, unknown>, fallback: string): string {
  const name = `The ${field} field`;
  switch (code) {
    case 'invalid_type':
      if (params.input === undefined && /received undefined/.test(fallback)) return `${name} is required.`;
      return `${name} must be ${article(String(params.expected ?? 'value'))}.`;
    case 'too_small':
      if (params.origin === 'string') return Number(params.minimum) <= 1 ? `${name} is required.` : `${name} must be at least ${String(params.minimum)} characters.`;
      if (params.origin === 'array' || params.origin === 'set') return `${name} must have at least ${String(params.minimum)} items.`;
      return `${name} must be ${params.inclusive === false ? 'greater than' : 'at least'} ${String(params.minimum)}.`;
    case 'too_big':
      if (params.origin === 'string') return `${name} must not be greater than ${String(params.maximum)} characters.`;
      if (params.origin === 'array' || params.origin === 'set') return `${name} must not have more than ${String(params.maximum)} items.`;
      return `${name} must not be greater than ${String(params.maximum)}.`;
    case 'invalid_format':
      // A pattern is ours, not the client's: Laravel's regex rule names no pattern either.
      if (params.format === 'regex' || params.format === undefined) return `${name} format is invalid.`;
      return `${name} must be a valid ${String(params.format)}.`;
    case 'invalid_value':
      return `The selected ${field} is invalid.`;
    case 'unrecognized_keys':
      return `${name} has unknown keys: ${(params.keys as string[] | undefined)?.join(', ') ?? ''}.`;
    case 'custom':
      // Our refinements already word their message as Laravel would.
      return /^The /.test(fallback) ? fallback : `${name} is invalid: ${fallback}`;
    default:
      return `${name} is invalid: ${fallback}`;
  }
}

export type FieldIssue = { path: string; code: string; params: Record<string, unknown>; message: string };

/**
 * zod's `.int()` bounds every integer to the safe range and reports that bound beside the
 * field's own `.max()`/`.min()`: for `per_page=1e20` the client would first read "must not be
 * greater than 9007199254740991". The safe-range issue is dropped when the field's own bound of
 * the same kind also failed, so the limit the client can act on is the one shown.
 */
function shadowedSafeIntBound(issue: FieldIssue, all: readonly FieldIssue[]): boolean {
  if (issue.params.origin !== 'int' || (issue.code !== 'too_big' && issue.code !== 'too_small')) return false;
  return all.some((other) => other !== issue && other.path === issue.path && other.code === issue.code && other.params.origin !== 'int');
}

/** The `errors` map of a 422: field → messages, in the order zod found them. */
export function fieldErrors(issues: readonly FieldIssue[]): Record<string, string[]> {
  const errors: Record<string, string[]> = {};
  for (const issue of issues) {
    if (shadowedSafeIntBound(issue, issues)) continue;
    (errors[issue.path] ??= []).push(fieldMessage(issue.path, issue.code, issue.params, issue.message));
  }
  return errors;
}

function article(type: string): string {
  const words: Record<string, string> = { int: 'an integer', number: 'a number', string: 'a string', object: 'an object', array: 'an array', boolean: 'true or false' };
  return words[type] ?? `a valid ${type}`;
}
