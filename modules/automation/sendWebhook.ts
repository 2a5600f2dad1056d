import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { Agent } from 'undici';
import type { SendWebhookAction } from './domain/actions.ts';
import { isWebhookUrl, unsendableHeader } from './domain/actions.ts';
import { jsonProblem, renderJsonTemplate, type TemplateScope } from './domain/template.ts';
import { type BlockReason, classifyAddress } from '../../platform/outbound/index.ts';

/**
 * The spec's result, plus `error` when no response was had: `invalid_url`, `invalid_payload`
 * (the rendered payload is not JSON: not sent, `message` says why), `invalid_headers` (a
 * configured header cannot be sent), `blocked_address`,
 * `dns_failure`, `connection_refused`, `connection_reset`, `connect_timeout`, `timeout`,
 * `network_error` (then `status_code` is 0 and `response_body` ''), or `aborted` (shutdown).
 */
export type WebhookResult = {
  success: boolean;
  status_code: number;
  response_body: string;
  headers: Record<string, string[]>;
  url: string;
  payload: string;
  method: string;
  error?: string;
  message?: string;
};

export type SendOptions = {
  allowHosts: readonly string[];
  timeoutMs: number;
  connectTimeoutMs: number;
  maxAttempts: number;
  retryBaseMs: number;
  /** `wf_<workflow>_step_<n>`: the same on every attempt and after a restart, so receivers can dedupe. */
  idempotencyKey: string;
  nowMs: () => number;
  signal: AbortSignal;
  /**
   * A long-lived dispatcher from guardedAgent (keep-alive connections per origin, each vetted by
   * the same guarded lookup when it opens); absent, each call opens and closes its own. Calls on a
   * shared agent are not tied to `signal` once made: its owner destroys the agent to end them.
   */
  agent?: Agent;
  /**
   * The body and headers are the caller's own (JSON it serialized, headers it made), not rendered
   * from a seller's template: they are not checked again on every call (event webhooks).
   */
  ownRequest?: boolean;
  /** false: the result's `headers` stay empty (event webhooks record none of them). */
  responseHeaders?: boolean;
};

/** A keep-alive undici Agent behind the SSRF guard: one pool of `connections` per origin. */
export function guardedAgent(options: { allowHosts: readonly string[]; timeoutMs: number; connectTimeoutMs: number; connections: number }): Agent {
  return new Agent({
    connect: { lookup: guardedLookup(options.allowHosts) as never, timeout: options.connectTimeoutMs },
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connections: options.connections,
    pipelining: 1,
    keepAliveTimeout: 4_000,
  });
}

/** Response bodies are kept up to this size in the recorded result. */
export const MAX_RESPONSE_BODY = 64 * 1024;
const USER_AGENT = 'commerce-service-webhooks/0.1';

class BlockedAddressError extends Error {
  readonly code = 'EBLOCKED';
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: BlockReason,
  ) {
    super(`${host} resolves to a blocked address`);
  }
}

const REASON_WORDS: Record<BlockReason, string> = {
  invalid: 'an invalid',
  unspecified: 'an unspecified',
  loopback: 'a loopback',
  private: 'a private',
  shared_cgnat: 'a shared (CGNAT)',
  link_local: 'a link-local',
  unique_local: 'a unique-local',
  multicast: 'a multicast',
  broadcast: 'a broadcast',
  reserved: 'a reserved',
};

/**
 * What a refused call says, to the seller in the step's result and to the operator in the log: a
 * bare `blocked_address` left people guessing that the guard exists, and which setting opens it.
 */
export function blockedAddressMessage(host: string, address: string, reason: BlockReason): string {
  const where = host === address ? address : `${host} (${address})`;
  return (
    `${where} is ${REASON_WORDS[reason]} address: outbound webhooks do not call private, loopback or link-local addresses (SSRF guard), and the request was not sent. ` +
    `To allow this host (tests, self-hosting), list it in the service's WEBHOOK_ALLOW_HOSTS setting: WEBHOOK_ALLOW_HOSTS=${host}`
  );
}

/**
 * Resolves every address of the host and refuses if any is private (a DNS answer mixing a public
 * and a private address is an attack, not an accident); the socket then connects to exactly the
 * addresses checked here, so a second resolution cannot swap them (DNS rebinding).
 */
function guardedLookup(allowHosts: readonly string[]) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number },
    callback: (err: NodeJS.ErrnoException | null, address?: string | LookupAddress[], family?: number) => void,
  ) => {
    dnsLookup(hostname, { all: true, family: options.family ?? 0 }, (err, addresses) => {
      if (err) return callback(err);
      const allowed = allowHosts.includes(hostname.toLowerCase());
      if (!allowed) {
        for (const a of addresses) {
          const reason = allowHosts.includes(a.address) ? null : classifyAddress(a.address);
          if (reason !== null) return callback(new BlockedAddressError(hostname.toLowerCase(), a.address, reason));
        }
      }
      if (addresses.length === 0) return callback(Object.assign(new Error('no address'), { code: 'ENOTFOUND' }));
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

const ERROR_CODES: Record<string, string> = {
  EBLOCKED: 'blocked_address',
  ENOTFOUND: 'dns_failure',
  EAI_AGAIN: 'dns_failure',
  ECONNREFUSED: 'connection_refused',
  ECONNRESET: 'connection_reset',
  EPIPE: 'connection_reset',
  UND_ERR_SOCKET: 'connection_reset',
  UND_ERR_CONNECT_TIMEOUT: 'connect_timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
  ETIMEDOUT: 'timeout',
};
const NOT_RETRIED = new Set(['blocked_address', 'invalid_url', 'invalid_payload', 'invalid_headers', 'aborted']);

function errorCode(error: unknown, signal: AbortSignal): string {
  if (signal.aborted) return 'aborted';
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const code = (e as { code?: string }).code;
    if (code && ERROR_CODES[code]) return ERROR_CODES[code]!;
    if ((e as { name?: string }).name === 'TimeoutError') return 'timeout';
    if (e instanceof BlockedAddressError) return 'blocked_address';
  }
  return 'network_error';
}

function blockedIn(error: unknown): BlockedAddressError | null {
  for (let e: unknown = error, depth = 0; e && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    if (e instanceof BlockedAddressError) return e;
  }
  return null;
}

/** Framing and routing headers are ours to set: a configured value would break or redirect the request. */
const CONTROLLED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection']);

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

/**
 * The response body up to MAX_RESPONSE_BODY (by its events: an async iterator per call costs more
 * than the call's own parsing), failing with a TimeoutError past `timeoutMs` when given.
 */
function readCapped(body: NodeJS.ReadableStream & { destroy(): void }, timeoutMs?: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const timer =
      timeoutMs === undefined
        ? undefined
        : setTimeout(() => {
            reject(Object.assign(new Error('the response body took too long'), { name: 'TimeoutError' }));
            body.destroy();
          }, timeoutMs);
    // Settled at the first of these: what the destroyed stream reports after that changes nothing.
    const done = () => {
      clearTimeout(timer);
      resolve(Buffer.concat(chunks).subarray(0, MAX_RESPONSE_BODY).toString('utf8'));
    };
    body.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size >= MAX_RESPONSE_BODY) {
        done();
        body.destroy();
      }
    });
    body.on('end', done);
    body.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
  });
}

function arrayHeaders(headers: Record<string, string | string[] | undefined>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined) out[name.toLowerCase()] = Array.isArray(value) ? value : [value];
  }
  return out;
}

/** Where a URL sends a call: parsed once per URL, not on every call to it. */
type Target = { origin: string; path: string; host: string; literal: boolean } | null;
const targets = new Map<string, Target>();
const MAX_TARGETS = 1000;

function targetOf(url: string): Target {
  let target = targets.get(url);
  if (target !== undefined) return target;
  if (!isWebhookUrl(url)) target = null;
  else {
    const parsed = new URL(url);
    const host = parsed.hostname.replace(/^\[|\]$/g, '').toLowerCase();
    target = { origin: parsed.origin, path: `${parsed.pathname}${parsed.search}`, host, literal: isIP(host) !== 0 };
  }
  if (targets.size >= MAX_TARGETS) targets.clear();
  targets.set(url, target);
  return target;
}

async function attempt(action: SendWebhookAction, payload: string, headers: Record<string, string>, options: SendOptions): Promise<WebhookResult> {
  const base = { url: action.url, payload, method: action.method.toLowerCase() };
  const failure = (error: string): WebhookResult => ({ success: false, status_code: 0, response_body: '', headers: {}, ...base, error });
  const target = targetOf(action.url);
  if (target === null) return failure('invalid_url');
  // The payload is a JSON template (checked when the sequence is saved), but a string value put
  // outside quotes, or a template saved before that check, can still render something else:
  // the receiver would get it as application/json, so it is not sent.
  const problem = options.ownRequest ? null : jsonProblem(payload);
  if (problem !== null) return { ...failure('invalid_payload'), message: `The payload rendered from the template is not JSON (${problem}); it was not sent.` };
  // Refused on save since; an action recorded before can hold a line break, which the HTTP client
  // refuses at each call (a network error, retried): said once, as what it is.
  const header = options.ownRequest ? null : unsendableHeader(headers);
  if (header !== null) return { ...failure('invalid_headers'), message: `The ${header} header holds a line break or control character; the request was not sent.` };
  const { host } = target;
  // Literal addresses never reach the resolver: judge them here.
  const literalReason = target.literal && !options.allowHosts.includes(host) ? classifyAddress(host) : null;
  if (literalReason !== null) return { ...failure('blocked_address'), message: blockedAddressMessage(host, host, literalReason) };
  if (options.signal.aborted) return failure('aborted');
  const agent =
    options.agent ??
    new Agent({
      connect: { lookup: guardedLookup(options.allowHosts) as never, timeout: options.connectTimeoutMs },
      headersTimeout: options.timeoutMs,
      bodyTimeout: options.timeoutMs,
      connections: 1,
      pipelining: 0,
    });
  // A call on a shared agent gets no AbortSignal: one joined from the caller's and a timeout's
  // costs more CPU than the call itself. Its agent's headers time-out bounds the wait for an
  // answer, the body has its own, and the agent's owner destroys it to end calls at shutdown.
  const signal = options.agent ? undefined : AbortSignal.any([options.signal, AbortSignal.timeout(options.timeoutMs)]);
  try {
    // The URL parsed once, by targetOf, rather than again by undici's request() on every call.
    const response = await agent.request({
      origin: target.origin,
      path: target.path,
      method: action.method,
      headers,
      body: payload === '' ? null : payload,
      ...(signal ? { signal } : {}),
    });
    const responseBody = await readCapped(response.body as never, signal ? undefined : options.timeoutMs);
    const status = response.statusCode;
    const responseHeaders = options.responseHeaders === false ? {} : arrayHeaders(response.headers);
    return { success: status >= 200 && status < 300, status_code: status, response_body: responseBody, headers: responseHeaders, ...base };
  } catch (error) {
    const code = errorCode(error, options.signal);
    const blocked = code === 'blocked_address' ? blockedIn(error) : null;
    return blocked ? { ...failure(code), message: blockedAddressMessage(blocked.host, blocked.address, blocked.reason) } : failure(code);
  } finally {
    if (!options.agent) agent.destroy().catch(() => undefined);
  }
}

export const retryable = (r: WebhookResult) =>
  r.error !== undefined ? !NOT_RETRIED.has(r.error) : r.status_code === 429 || r.status_code >= 500;

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
export async function sendWebhook(action: SendWebhookAction, scope: TemplateScope, options: SendOptions): Promise<{ result: WebhookResult; attempts: number }> {
  const { payload, headers } = prepareRequest(action, scope, options.idempotencyKey);
  const signer = action.signing_secret ? signerOf(action.signing_secret) : null;
  let result: WebhookResult;
  let attempts = 0;
  for (;;) {
    attempts += 1;
    result = await attempt(action, payload, attemptHeaders(headers, payload, options.idempotencyKey, signer, options.nowMs()), options);
    if (result.success || attempts >= options.maxAttempts || !retryable(result) || options.signal.aborted) break;
    await sleep(options.retryBaseMs * 2 ** (attempts - 1), options.signal);
    if (options.signal.aborted) break;
  }
  if (options.signal.aborted) result = { ...result, success: false, error: 'aborted' };
  return { result, attempts };
}

/**
 * One guarded call and no retry, for event webhook deliveries (their retries follow a recorded
 * schedule, not a loop in memory): the same SSRF guard, allow list, time-outs and no redirects.
 */
export function sendOnce(url: string, payload: string, headers: Record<string, string>, options: SendOptions): Promise<WebhookResult> {
  return attempt({ type: 'send_webhook', url, method: 'POST', payload, headers: {}, signing_secret: null }, payload, headers, options);
}
