import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import type { Services } from '../platform/runtime/services.ts';
import { retryable, sendOnce } from '../automation/sendWebhook.ts';
import type { EventMetadata, RecordedEvent } from '../platform/eventStore/eventStore.ts';
import { handleCommand, type CommandContext } from '../platform/es/handleCommand.ts';
import type { SecretBox } from '../commands/webhooks/secretBox.ts';
import { loadWebhookEndpoint } from '../commands/webhooks/webhookEndpointCommands.ts';
import { fold } from '../platform/domain/decider.ts';
import {
  DISABLE_AFTER_FAILING_SECONDS,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  type AttemptOutcome,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from '../domain/webhooks/webhookDelivery.ts';
import { signingSecrets, webhookEndpointDecider, webhookEndpointStream, type WebhookEndpointState } from '../domain/webhooks/webhookEndpoint.ts';
import type { Logger } from '../platform/es/projectionRunner.ts';
import type { ReadStore } from '../platform/readStore/readStore.ts';
import { WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, type DeliveryDoc, type EndpointDoc } from '../projections/webhooks/webhookProjection.ts';
import { InFlight, orderKey } from './inFlight.ts';

/** What an attempt keeps of the receiver's answer. */
export const RESPONSE_EXCERPT_CHARS = 1024;
const USER_AGENT = 'commerce-service-webhooks/0.1';
const DUE_BATCH = 1000;
/** Pages a pass reads at most while it finds too little it may send (DUE_BATCH each). */
const DUE_PAGES = 10;
const PASS_WAIT_MS = 1000;

export type DispatchOptions = {
  box: SecretBox;
  logger: Logger;
  signal: AbortSignal;
  /** Calls at once in all, and to one endpoint (its agent's connections per origin). */
  concurrency: number;
  perEndpoint: number;
  /** Keep-alive connections shared by the job's attempts (guardedAgent); absent, one per attempt. */
  agent?: Agent;
  /** How long a dispatcher pass waits for its calls before it leaves the slow ones running (PASS_WAIT_MS). */
  passWaitMs?: number;
  /** Due deliveries a pass reads at most (DUE_BATCH). */
  dueBatch?: number;
  /** Shared with the fan-out's sends (claims, the concurrency limit, batched records); absent, one of its own. */
  inFlight?: InFlight;
};

/**
 * The due deliveries that go first for their resource and endpoint: one query for the pending
 * deliveries of the batch's keys (due or waiting for a retry), and the oldest of each key in the
 * log is the one that may go, wherever it stands in `due`.
 */
export async function firstOfTheirResource(services: Services, due: readonly DeliveryDoc[]): Promise<DeliveryDoc[]> {
  if (due.length === 0) return [];
  const oldest = await oldestPending(services, due);
  const seen = new Set<string>();
  const ready: DeliveryDoc[] = [];
  for (const d of due) {
    const key = orderKey(d.endpoint_id, d.resource);
    if (seen.has(key) || (oldest.get(key) ?? d.position) < d.position) continue;
    seen.add(key);
    ready.push(d);
  }
  return ready;
}

/**
 * The log position of the oldest pending delivery (due or waiting for a retry) of each endpoint
 * and resource among `of`, by orderKey: one query for them all.
 */
export async function oldestPending(services: Services, of: ReadonlyArray<{ endpoint_id: string; resource: string }>): Promise<Map<string, number>> {
  const pending = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
    filter: { status: 'pending', endpoint_id: { $in: [...new Set(of.map((d) => d.endpoint_id))] }, resource: { $in: [...new Set(of.map((d) => d.resource))] } },
  });
  const oldest = new Map<string, number>();
  for (const p of pending) {
    const key = orderKey(p.endpoint_id, p.resource);
    const at = oldest.get(key);
    if (at === undefined || p.position < at) oldest.set(key, p.position);
  }
  return oldest;
}

/**
 * A page of the deliveries due at `now`, earliest due first, those to the `busy` endpoints left
 * out: the deliveries of an endpoint that hangs with a backlog, claimed by an earlier pass and
 * waiting for its slots, would fill every page, and the other endpoints' wait behind them until
 * that backlog is gone. The order is the webhooks projection's (status, next_attempt_at,
 * position, id) index's: a page is read off the index, not sorted out of every due delivery on
 * each pass.
 */
export function dueDeliveries(readStore: ReadStore, now: number, busy: readonly string[], limit: number, skip = 0): Promise<DeliveryDoc[]> {
  return readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
    filter: { status: 'pending', next_attempt_at: { $lte: now }, ...(busy.length > 0 ? { endpoint_id: { $nin: [...busy] } } : {}) },
    sort: [
      ['next_attempt_at', 1],
      ['position', 1],
    ],
    skip,
    limit,
  });
}

/**
 * One pass: deliveries due now, to endpoints with room for a call, are attempted once, earliest
 * due first, and never ahead of an older delivery of the same resource to the same endpoint
 * that is still pending (in order per resource). It reads a page of DUE_BATCH, and the next ones
 * (DUE_PAGES at most) while it has claimed fewer than half a page: deliveries held back behind
 * their resource's retry, or claimed by the fan-out's sends, must not fill every page it reads.
 * More may be due when it returns `full`: then the caller goes again at once. The read model
 * only finds candidates: each is checked against its own stream before the call, so a lagging
 * read model cannot make a second attempt out of one that was recorded.
 */
export async function dispatchPass(services: Services, options: DispatchOptions): Promise<{ attempted: number; full: boolean; late: Promise<void> }> {
  const inFlight = options.inFlight ?? new InFlight(options.concurrency, options.perEndpoint);
  const now = Math.floor(services.clock() / 1000);
  const dueBatch = options.dueBatch ?? DUE_BATCH;
  const busy = inFlight.busyEndpoints();
  const claimed: DeliveryDoc[] = [];
  let more = false;
  for (let page = 0; page < DUE_PAGES && claimed.length < dueBatch / 2; page++) {
    const due = await dueDeliveries(services.readStore, now, busy, dueBatch, page * dueBatch);
    // The direct send of a delivery just created has it: not twice at once.
    for (const d of await firstOfTheirResource(services, due)) if (inFlight.claim(d.id)) claimed.push(d);
    more = due.length === dueBatch;
    if (!more) break;
  }
  let attempted = 0;
  // Each outcome is recorded while the call's slot goes to the next one: the records of the
  // pass's concurrent calls share group commits instead of each call waiting for its own fsync.
  // The pass ends when every record is written; one lost to a crash makes the call again, with
  // the same webhook-id (at least once).
  const records: Array<Promise<void>> = [];
  const endpoints = endpointsOfPass(services);
  const shared = { ...options, inFlight };
  const calls = Promise.all(
    claimed.map(async (d) => {
      const made = await callInSlot(d, shared, records, () => attemptAndRecord(services, d.id, shared, endpoints));
      if (!made) return inFlight.release(d.id);
      attempted += 1;
    }),
  ).then(() => Promise.all(records).then(() => undefined));
  // A pass waits PASS_WAIT_MS for its calls, then leaves the slow ones running (claimed until
  // their outcome is recorded): the next pass, and the deliveries that fall due meanwhile, do not
  // wait behind an endpoint that hangs.
  let timer: NodeJS.Timeout | undefined;
  const done = await Promise.race([calls.then(() => true), new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), options.passWaitMs ?? PASS_WAIT_MS)))]);
  clearTimeout(timer);
  // Only when it got everything done: pages all held back behind earlier retries, or still under way, would spin.
  return { attempted, full: done && more && attempted > 0, late: done ? Promise.resolve() : calls };
}

/**
 * Makes `call` for the claimed delivery `id` in one of the job's slots for its endpoint (none once
 * stopped). Its record, once made, joins `records` and releases the claim when written; a delivery
 * that cannot be attempted or recorded (its record conflicted, its secret cannot be opened under
 * this service secret) is logged and must not hold up the others: it stays due. Null when no call
 * was made (the claim is then the caller's to release).
 */
export async function callInSlot<Made extends { recording: Promise<void> }>(
  { id, endpoint_id: endpointId }: { id: string; endpoint_id: string },
  options: DispatchOptions & { inFlight: InFlight },
  records: Array<Promise<void>>,
  call: () => Promise<Made | null>,
): Promise<Made | null> {
  const failed = (error: unknown) => options.logger.error({ err: error, delivery: id }, 'webhook delivery could not be attempted');
  let made: Made | null = null;
  try {
    made = await options.inFlight.slot(endpointId, () => (options.signal.aborted ? Promise.resolve(null) : call()));
  } catch (error) {
    failed(error);
  }
  if (made) records.push(made.recording.catch(failed).finally(() => options.inFlight.release(id)));
  return made;
}

/** Endpoints as their streams say, read once per pass (or per fan-out batch) rather than once per delivery. */
export function endpointsOfPass(services: Services): (id: string) => Promise<WebhookEndpointState | null> {
  const loaded = new Map<string, Promise<WebhookEndpointState | null>>();
  return (id) => {
    let found = loaded.get(id);
    if (!found) loaded.set(id, (found = loadWebhookEndpoint(services, id)));
    return found;
  };
}

/*
 * Signers by sealed secret, per box: opening a secret (AES-GCM) and preparing its key once per
 * endpoint secret rather than once per call. A rotated-out secret is dropped with the rest when
 * the map grows past its bound.
 */
const signers = new WeakMap<SecretBox, Map<string, Webhook>>();
function signerFor(box: SecretBox, sealed: string): Webhook {
  let byBox = signers.get(box);
  if (!byBox) signers.set(box, (byBox = new Map()));
  let signer = byBox.get(sealed);
  if (!signer) {
    if (byBox.size >= 1000) byBox.clear();
    byBox.set(sealed, (signer = new Webhook(box.open(sealed))));
  }
  return signer;
}

export function webhookContext(services: Services, organizationId: string, correlation: string): CommandContext {
  const metadata: EventMetadata = {
    correlation_id: correlation,
    actor: { type: 'system', name: 'webhooks' },
    organization_id: organizationId,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

/**
 * Attempts one delivery if its stream says it is due; resolves once the call is made, with the
 * recording of its outcome under way (wrapped, so awaiting this does not wait for it), or null
 * when no call was made.
 */
export async function attemptAndRecord(
  services: Services,
  id: string,
  options: DispatchOptions,
  endpoints: (id: string) => Promise<WebhookEndpointState | null> = (endpointId) => loadWebhookEndpoint(services, endpointId),
): Promise<{ recording: Promise<void> } | null> {
  const stream = webhookDeliveryStream(id);
  const recorded = await services.store.readStream(stream);
  const state = fold(webhookDeliveryDecider, recorded as unknown as WebhookDeliveryEvent[]);
  const now = Math.floor(services.clock() / 1000);
  if (state.id === null || state.status !== 'pending' || state.next_attempt_at === null || state.next_attempt_at > now) return null;
  const endpoint = await endpoints(state.endpoint_id);
  if (!endpoint || !endpoint.enabled) {
    await handleCommand(webhookContext(services, state.organization_id, `webhook_${state.event_id}`), stream, webhookDeliveryDecider, { type: 'Abandon', reason: endpoint ? 'endpoint_disabled' : 'endpoint_deleted', now }, { known: recorded });
    return null;
  }
  const resource = (recorded[0]!.data as { resource: string }).resource;
  return callAndRecord(services, { stream, state, known: recorded, resource }, endpoint, options);
}

/** A pending delivery as its stream has it, ready for a call. */
export type Attemptable = { stream: string; state: WebhookDeliveryState; known: readonly RecordedEvent[]; resource: string };

/**
 * Signs and sends one pending delivery to its (enabled) endpoint, then has its outcome recorded
 * (batched with others' when `options.inFlight` is given). Null when stopped mid-call: nothing is
 * recorded, and the next run attempts it again with the same webhook-id.
 */
export async function callAndRecord(services: Services, delivery: Attemptable, endpoint: WebhookEndpointState, options: DispatchOptions): Promise<{ recording: Promise<void>; outcome: AttemptOutcome } | null> {
  const { state, stream } = delivery;
  const outcome = await callOnce(services, state, endpoint, options);
  if (!outcome) return null;
  const write = async () => {
    const after = Math.floor(services.clock() / 1000);
    // The stream as read (or just created): no second read unless another writer moved it.
    const recorded = await recordOutcome(services, { stream, organizationId: state.organization_id, eventId: state.event_id }, outcome, after, delivery.known);
    options.inFlight?.touch(orderKey(state.endpoint_id, delivery.resource), recorded.position);
    if (!outcome.success) await disableIfFailingTooLong(services, state.endpoint_id, state.organization_id, after, options.logger);
  };
  const recording = options.inFlight ? options.inFlight.record(write) : write();
  return { recording, outcome };
}

/**
 * A call's outcome on its delivery's stream. `known`: the stream as last read or appended, so it
 * is not read again (empty: read it, as when an earlier run created the delivery).
 */
export function recordOutcome(
  services: Services,
  delivery: { stream: string; organizationId: string; eventId: string },
  outcome: AttemptOutcome,
  now: number,
  known: readonly RecordedEvent[],
) {
  const ctx = webhookContext(services, delivery.organizationId, `webhook_${delivery.eventId}`);
  return handleCommand(ctx, delivery.stream, webhookDeliveryDecider, { type: 'RecordAttempt', outcome, now }, known.length > 0 ? { known } : {});
}

/** Signs and POSTs one webhook to its endpoint: its outcome, or null when the job stopped mid-call. */
export async function callOnce(services: Services, message: { event_id: string; payload: string }, endpoint: WebhookEndpointState, options: DispatchOptions): Promise<AttemptOutcome | null> {
  const nowMs = services.clock();
  const now = Math.floor(nowMs / 1000);
  const timestamp = new Date(nowMs);
  // One signature per secret in force: during a rotation's overlap receivers holding either verify.
  const signature = signingSecrets(endpoint, now)
    .map((sealed) => signerFor(options.box, sealed).sign(message.event_id, timestamp, message.payload))
    .join(' ');
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': message.event_id,
    'webhook-timestamp': String(now),
    'webhook-signature': signature,
  };
  const c = services.config;
  const started = performance.now();
  const result = await sendOnce(endpoint.url, message.payload, headers, {
    allowHosts: c.WEBHOOK_ALLOW_HOSTS,
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS,
    maxAttempts: 1,
    retryBaseMs: 0,
    idempotencyKey: message.event_id,
    nowMs: services.clock,
    signal: options.signal,
    // Our own JSON and headers: not checked again on every call as a seller's template is.
    ownRequest: true,
    responseHeaders: false,
    ...(options.agent ? { agent: options.agent } : {}),
  });
  if (result.error === 'aborted') return null;
  services.metrics.webhookResult(result.success);
  return {
    success: result.success,
    status_code: result.status_code,
    error: result.error ?? null,
    retryable: !result.success && retryable(result),
    duration_ms: Math.round(performance.now() - started),
    response_excerpt: result.response_body.slice(0, RESPONSE_EXCERPT_CHARS),
  };
}

/** An endpoint failing (no success at all) for five days is disabled; the event tells its owner why. */
export async function disableIfFailingTooLong(services: Services, endpointId: string, organizationId: string, now: number, logger: Logger): Promise<void> {
  const doc = await services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpointId);
  if (!doc?.enabled || doc.failing_since === null || now - doc.failing_since < DISABLE_AFTER_FAILING_SECONDS) return;
  const result = await handleCommand(webhookContext(services, organizationId, `webhook_endpoint_${endpointId}`), webhookEndpointStream(endpointId), webhookEndpointDecider, {
    type: 'DisableFailing',
    failingSince: doc.failing_since,
    now,
  });
  if (result.events.length > 0) logger.info({ endpoint: endpointId, organization: organizationId, failing_since: doc.failing_since }, 'webhook endpoint disabled: its deliveries failed for five days');
}
