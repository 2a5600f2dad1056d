import { Webhook } from 'standardwebhooks';
import { CONTROLLED_HEADERS, retryable, type SendOptions, sendRequest, USER_AGENT, type WebhookResult } from '../../platform/outbound/index.ts';
import type { SendWebhookAction } from './domain/actions.ts';
import { unsendableHeader } from './domain/actions.ts';
import { jsonProblem, renderJsonTemplate, type TemplateScope } from './domain/template.ts';

export type SendWebhookOptions = Omit<SendOptions, 'vet'> & {
  maxAttempts: number;
  retryBaseMs: number;
  /** `wf_<workflow>_step_<n>`: the same on every attempt and after a restart, so receivers can dedupe. */
  idempotencyKey: string;
  nowMs: () => number;
};

/**
 * The signer of a secret. `whsec_…` secrets (the form a secret is saved in) and any other string the
 * receiver's `new Webhook(secret)` accepts sign as that derives the key; a secret saved earlier in
 * a form it refuses signs with the secret's own characters as the key, which receivers verify with
 * `new Webhook(secret, { format: 'raw' })`.
 */
export function signerOf(secret: string): Webhook {
  try {
    return new Webhook(secret);
  } catch {
    return new Webhook(secret, { format: 'raw' });
  }
}

/**
 * The Standard Webhooks headers of one attempt: `webhook-id` is the step's idempotency key (the
 * same on every attempt, so receivers dedupe on it), `webhook-timestamp` the attempt's time, and
 * `webhook-signature` (`v1,<base64>`) when the action has a secret.
 */
export function attemptHeaders(headers: Record<string, string>, payload: string, idempotencyKey: string, signer: Webhook | null, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000);
  const signed = { ...headers, 'webhook-id': idempotencyKey, 'webhook-timestamp': String(timestamp) };
  return signer ? { ...signed, 'webhook-signature': signer.sign(idempotencyKey, new Date(timestamp * 1000), payload) } : signed;
}

/** The body the action sends and the headers it adds (attemptHeaders adds those of each attempt). */
export function prepareRequest(action: SendWebhookAction, scope: TemplateScope, idempotencyKey: string) {
  const payload = action.method === 'GET' || action.payload === '' ? '' : renderJsonTemplate(action.payload, scope);
  const headers: Record<string, string> = { 'user-agent': USER_AGENT };
  for (const [name, value] of Object.entries(action.headers)) {
    if (!CONTROLLED_HEADERS.has(name.toLowerCase())) headers[name.toLowerCase()] = value;
  }
  if (payload !== '' && headers['content-type'] === undefined) headers['content-type'] = 'application/json';
  headers['idempotency-key'] = idempotencyKey;
  return { payload, headers };
}

/** What the action's rendered request may not be: refused unsent, and not retried. */
function vet(payload: string, headers: Record<string, string>): { error: string; message: string } | null {
  // The payload is a JSON template (checked when the sequence is saved), but a string value put
  // outside quotes, or a template saved before that check, can still render something else:
  // the receiver would get it as application/json, so it is not sent.
  const problem = jsonProblem(payload);
  if (problem !== null) return { error: 'invalid_payload', message: `The payload rendered from the template is not JSON (${problem}); it was not sent.` };
  // Refused on save since; an action recorded before can hold a line break, which the HTTP client
  // refuses at each call (a network error, retried): said once, as what it is.
  const header = unsendableHeader(headers);
  if (header !== null) return { error: 'invalid_headers', message: `The ${header} header holds a line break or control character; the request was not sent.` };
  return null;
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}

/**
 * Sends one Send Webhook action: up to maxAttempts tries, waiting retryBaseMs × 2^(n-1) between
 * them (1 s, 2 s, 4 s by default) after a network error, a 429 or a 5xx. Redirects are not
 * followed: a 3xx is the (unsuccessful) result. Returns the last attempt's result.
 */
export async function sendWebhook(action: SendWebhookAction, scope: TemplateScope, options: SendWebhookOptions): Promise<{ result: WebhookResult; attempts: number }> {
  const { payload, headers } = prepareRequest(action, scope, options.idempotencyKey);
  const signer = action.signing_secret ? signerOf(action.signing_secret) : null;
  let result: WebhookResult;
  let attempts = 0;
  for (;;) {
    attempts += 1;
    const request = { url: action.url, method: action.method, payload, headers: attemptHeaders(headers, payload, options.idempotencyKey, signer, options.nowMs()) };
    result = await sendRequest(request, { ...options, vet });
    if (result.success || attempts >= options.maxAttempts || !retryable(result) || options.signal.aborted) break;
    await sleep(options.retryBaseMs * 2 ** (attempts - 1), options.signal);
    if (options.signal.aborted) break;
  }
  if (options.signal.aborted) result = { ...result, success: false, error: 'aborted' };
  return { result, attempts };
}
