import { jsonTemplateProblem, renderJsonTemplate } from './template.ts';

// What a Send Webhook action may call: the rule the guarded client (platform/outbound) applies.
export { isWebhookUrl } from '../../../platform/domain/index.ts';

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
  /**
   * When set, calls are signed as Standard Webhooks (`webhook-signature: v1,<base64>`), verifiable
   * with `new Webhook(signing_secret)` of the `standardwebhooks` libraries. Saved secrets are
   * `whsec_…` (isSigningSecret); the log can hold older ones in other forms (sendWebhook.ts).
   */
  signing_secret: string | null;
};

/**
 * A Send Webhook action as a sequence is created or updated with: its `signing_secret` may also
 * be left out (keep the secret of the step at the same position) or name a step of the sequence
 * as it stands whose secret it keeps, so an edit need not send the secret again.
 */
export type KeptSecret = { from_step: number };
/** A new secret as the command sealed it for the log (the decider never sees it in plain text). */
export type SealedSecret = { sealed: string };
export type ActionInput = Action | (Omit<SendWebhookAction, 'signing_secret'> & { signing_secret?: string | null | KeptSecret | SealedSecret });

/**
 * Standard Webhooks secrets: `whsec_` and the base64 of 24 to 64 random bytes (192–512 bits, the
 * range the specification gives). That is what the receiver's library takes as it is; a string
 * in another form would make it throw, or need a per-library option.
 */
const SECRET_FORM = /^whsec_((?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?)$/;
export function isSigningSecret(value: string): boolean {
  const base64 = SECRET_FORM.exec(value)?.[1];
  if (base64 === undefined) return false;
  const bytes = (base64.length / 4) * 3 - (base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0);
  return bytes >= 24 && bytes <= 64;
}
export const SIGNING_SECRET_MESSAGE =
  'The signing secret must be a Standard Webhooks secret: whsec_ followed by the base64 of 24 to 64 random bytes, ' +
  'e.g. "whsec_" + the output of `openssl rand -base64 32` (the dashboard makes one for you).';

export type EnrolInPromoAction = {
  type: 'enrol_in_promo';
  promo: string;
  email: string;
  reference: string;
};

export type Action = SendWebhookAction | EnrolInPromoAction;

export const DEFAULT_EMAIL_TEMPLATE = '{{webhook_payload.email}}';
export const DEFAULT_REFERENCE_TEMPLATE = '{{webhook_payload.ref}}';

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
