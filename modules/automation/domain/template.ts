/**
 * `{{webhook_payload.email}}`-style templates. In a JSON template a value inside a JSON string is
 * inserted JSON-escaped without its quotes (so `"{{webhook_payload.email}}"` stays valid JSON
 * whatever the sender wrote; numbers, booleans, objects and arrays as their JSON text, escaped);
 * outside a string, numbers, booleans, objects and arrays as JSON and a string as its escaped text
 * (so a form's "5" gives 5). A missing path or null renders as the empty string inside a string and
 * as `null` outside one, where an empty string would leave a hole (`{"n":}`).
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

const escaped = (text: string) => JSON.stringify(text).slice(1, -1);

/** Whether JSON text that starts inside a string (or not) ends inside one. */
function endsInString(text: string, inString: boolean): boolean {
  for (let i = 0; i < text.length; i++) {
    if (inString && text[i] === '\\') i++;
    else if (text[i] === '"') inString = !inString;
  }
  return inString;
}

/** Renders for a JSON body; each value as its place in the JSON text asks (see above). */
export function renderJsonTemplate(template: string, scope: TemplateScope): string {
  let out = '';
  let from = 0;
  let inString = false;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const before = template.slice(from, match.index);
    inString = endsInString(before, inString);
    const value = lookup(scope, match[1]!);
    let text: string;
    if (value === undefined || value === null) text = inString ? '' : 'null';
    else if (typeof value === 'string') text = escaped(value);
    else text = inString ? escaped(JSON.stringify(value)) : JSON.stringify(value);
    out += before + text;
    from = match.index + match[0].length;
  }
  return out + template.slice(from);
}

/** Why a rendered JSON body is not JSON, or null when it is (an empty body is no body). */
export function jsonProblem(text: string): string | null {
  if (text === '') return null;
  try {
    JSON.parse(text);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/**
 * Why a payload template cannot render JSON, or null when it can: rendered with no values (each
 * placeholder `null`, or empty inside a string), it must parse. Then any webhook renders JSON too,
 * except a string value placed outside quotes, which the sending step checks.
 */
export const jsonTemplateProblem = (template: string): string | null => jsonProblem(renderJsonTemplate(template, {}));

/** Renders a plain value (an email, a reference): the string as is, other values as JSON. */
export function renderTextTemplate(template: string, scope: TemplateScope): string {
  return template.replace(PLACEHOLDER, (_m, path: string) => {
    const value = lookup(scope, path);
    if (value === undefined || value === null) return '';
    return typeof value === 'string' ? value : JSON.stringify(value);
  });
}
