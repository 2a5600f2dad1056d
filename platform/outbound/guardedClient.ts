import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { Agent } from 'undici';
import { isWebhookUrl } from '../domain/index.ts';
import { type BlockReason, classifyAddress } from './addressClassifier.ts';

/**
 * The spec's result, plus `error` when no response was had: `invalid_url`, what the caller's
 * `vet` refused (Send Webhook's `invalid_payload` and `invalid_headers`: not sent, `message` says
 * why), `blocked_address`, `dns_failure`, `connection_refused`, `connection_reset`,
 * `connect_timeout`, `timeout`, `network_error` (then `status_code` is 0 and `response_body`
 * ''), or `aborted` (shutdown).
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

/** One call: the body is sent unless empty. */
export type OutboundRequest = { url: string; method: string; payload: string; headers: Record<string, string> };

export type SendOptions = {
  allowHosts: readonly string[];
  timeoutMs: number;
  connectTimeoutMs: number;
  signal: AbortSignal;
  /**
   * A long-lived dispatcher from guardedAgent (keep-alive connections per origin, each vetted by
   * the same guarded lookup when it opens); absent, each call opens and closes its own. Calls on a
   * shared agent are not tied to `signal` once made: its owner destroys the agent to end them.
   */
  agent?: Agent;
  /**
   * The caller's own rules on the body and headers, for those rendered from a seller's template
   * (Send Webhook): a refusal is the result, unsent. Checked after the URL, before the address.
   * Absent when the body and headers are the caller's own JSON and headers (event webhooks).
   */
  vet?: (payload: string, headers: Record<string, string>) => { error: string; message: string } | null;
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
export const USER_AGENT = 'commerce-service-webhooks/0.1';

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
export const CONTROLLED_HEADERS = new Set(['host', 'content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'expect', 'te', 'trailer', 'proxy-connection']);

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

/**
 * One guarded call and no retry: the SSRF guard, the allow list, the time-outs, and no redirects
 * (a 3xx is the unsuccessful result).
 */
export async function sendRequest(request: OutboundRequest, options: SendOptions): Promise<WebhookResult> {
  const { payload, headers } = request;
  const base = { url: request.url, payload, method: request.method.toLowerCase() };
  const failure = (error: string): WebhookResult => ({ success: false, status_code: 0, response_body: '', headers: {}, ...base, error });
  const target = targetOf(request.url);
  if (target === null) return failure('invalid_url');
  const refusal = options.vet ? options.vet(payload, headers) : null;
  if (refusal !== null) return { ...failure(refusal.error), message: refusal.message };
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
      method: request.method,
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

/**
 * One guarded POST, for event webhook deliveries (their retries follow a recorded schedule, not
 * a loop in memory).
 */
export function sendOnce(url: string, payload: string, headers: Record<string, string>, options: SendOptions): Promise<WebhookResult> {
  return sendRequest({ url, method: 'POST', payload, headers }, options);
}
