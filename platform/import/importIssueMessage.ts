import type { z } from 'zod';

const KIND: Record<string, string> = {
  int: 'an integer',
  number: 'a number',
  string: 'a string (in quotes)',
  boolean: 'true or false',
  object: 'an object ({ … })',
  array: 'a list ([ … ])',
  null: 'null',
};

const typeOf = (value: unknown) => (value === null ? 'null' : Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : `a ${typeof value}`);

/**
 * A zod issue of an import file in words for the person who edits the file: zod's defaults
 * ("Invalid input: expected string, received number", "Too small: expected string to have >=1
 * characters") name types rather than what to write. Messages the schemas word themselves
 * (custom checks, formats, our own `error`s) are kept as they are.
 */
export function importIssueMessage(issue: z.core.$ZodIssue): string {
  const field = [...issue.path].reverse().find((p) => typeof p === 'string') ?? 'this value';
  switch (issue.code) {
    case 'invalid_type':
      if (!/^Invalid input/.test(issue.message)) return issue.message;
      if (issue.input === undefined) return `${field} is required`;
      return `${field} must be ${KIND[issue.expected] ?? issue.expected}, not ${typeOf(issue.input)}`;
    case 'invalid_value':
      if (!/^Invalid (input|option)/.test(issue.message)) return issue.message;
      return issue.values.length === 1 ? `${field} must be ${JSON.stringify(issue.values[0])}` : `${field} must be one of: ${issue.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'too_small':
      if (!/^Too small/.test(issue.message)) return issue.message;
      if (issue.origin === 'string') return Number(issue.minimum) <= 1 ? `${field} must not be empty` : `${field} must be at least ${issue.minimum} characters`;
      if (issue.origin === 'array') return `${field} needs at least ${issue.minimum} item${Number(issue.minimum) === 1 ? '' : 's'}`;
      return `${field} must be at least ${issue.minimum}`;
    case 'too_big':
      if (!/^Too big/.test(issue.message)) return issue.message;
      if (issue.origin === 'string') return `${field} must be at most ${issue.maximum} characters`;
      if (issue.origin === 'array') return `${field} takes at most ${issue.maximum} items`;
      return `${field} must be at most ${issue.maximum}`;
    case 'unrecognized_keys':
      return `unknown field${issue.keys.length === 1 ? '' : 's'} ${issue.keys.map((k) => JSON.stringify(k)).join(', ')} (check the spelling)`;
    default:
      return issue.message;
  }
}
