/**
 * `{{webhook_payload.email}}`-style templates. Values are inserted JSON-escaped (a string without
 * its quotes, so `"{{webhook_payload.email}}"` stays valid JSON whatever the sender wrote; numbers,
 * booleans, objects and arrays as JSON); a missing path renders as the empty string.
 */
const PLACEHOLDER = /\{\{\s*([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z0-9_-]+)*)\s*\}\}/g;

export type TemplateScope = Record<string, unknown>;

export function lookup(scope: TemplateScope, path: string): unknown {
  let value: unknown = scope;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** Renders for a JSON body: string values JSON-escaped. */
export function renderJsonTemplate(template: string, scope: TemplateScope): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = lookup(scope, path);
    if (value === undefined || value === null) return '';
    if (typeof value === 'string') return JSON.stringify(value).slice(1, -1);
    return JSON.stringify(value);
  });
}

/** Renders a plain value (an email, a reference): the string as is, other values as JSON. */
export function renderTextTemplate(template: string, scope: TemplateScope): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = lookup(scope, path);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
