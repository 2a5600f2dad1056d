import { jsonTemplateProblem, renderJsonTemplate } from './template.ts';

/** The actions a sequence runs, in order, for each workflow its triggers start. */
export const WEBHOOK_METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'] as const;
export type WebhookMethod = (typeof WEBHOOK_METHODS)[number];

export type SendWebhookAction = {
  type: 'send_webhook';
  url: string;
  method: WebhookMethod;
  /** A JSON string template; `{{webhook_payload.email}}` etc. are filled in as template.ts says. Empty for GET. */
  payload: string;
  headers: Record<string, string>;
  /** When set, calls carry `Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of "t.body">`. */
  signing_secret: string | null;
};

export type EnrolInPromoAction = {
  type: 'enrol_in_promo';
  promo: string;
  email: string;
  reference: string;
};

export type Action = SendWebhookAction | EnrolInPromoAction;

export const DEFAULT_EMAIL_TEMPLATE = '{{webhook_payload.email}}';
export const DEFAULT_REFERENCE_TEMPLATE = '{{webhook_payload.ref}}';

/** Only http and https URLs with a host are sent to; checked again (with DNS) before each call. */
export function isWebhookUrl(value: string): boolean {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return false;
  }
  return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname !== '' && url.username === '' && url.password === '';
}

/** RFC 9110 token: what a header name may hold. */
export const HEADER_NAME = /^[A-Za-z0-9!#$%&'*+.^_`|~-]+$/;
/**
 * RFC 9110 field-value characters (tab, space, visible ASCII and obs-text bytes): no CR, LF or
 * NUL, which would split the request, and nothing past U+00FF, which has no byte to send as.
 */
export const HEADER_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;
export const HEADER_VALUE_MESSAGE = 'A header value may hold tabs, spaces and visible characters only (no line breaks or control characters).';

/** The first configured header a request cannot carry as it is, or null when all can. */
export function unsendableHeader(headers: Record<string, string>): string | null {
  for (const [name, value] of Object.entries(headers)) {
    if (!HEADER_NAME.test(name) || typeof value !== 'string' || !HEADER_VALUE.test(value)) return name;
  }
  return null;
}

/**
 * Why a send_webhook action's payload template cannot render JSON, in words for whoever wrote it
 * (`name` says which action; the URL is added); null when it can, or is empty (no body).
 */
export function payloadTemplateIssue(action: Pick<SendWebhookAction, 'url' | 'payload'>, name: string): string | null {
  const problem = jsonTemplateProblem(action.payload);
  if (problem === null) return null;
  const rendered = renderJsonTemplate(action.payload, {});
  return (
    `The payload of ${name} (send_webhook to ${action.url.slice(0, 200)}) must be a JSON template: ` +
    `with each {{…}} filled in (null, or nothing inside quotes) it reads ${rendered.length > 200 ? `${rendered.slice(0, 200)}…` : rendered}, ` +
    `which is not JSON (${problem}).`
  );
}
