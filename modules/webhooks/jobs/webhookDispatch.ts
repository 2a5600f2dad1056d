import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { Agent } from 'undici';
import type { Services } from '../../../platform/runtime/index.ts';
import { retryable, sendOnce, USER_AGENT } from '../../../platform/outbound/index.ts';
import { type CommandContext, handleCommand, type Logger } from '../../../platform/es/index.ts';
import type { SecretBox } from '../../../platform/lib/index.ts';
import { loadWebhookEndpoint } from '../webhookEndpointCommands.ts';
import { fold } from '../../../platform/domain/index.ts';
import {
  DISABLE_AFTER_FAILING_SECONDS,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  type AttemptOutcome,
  type WebhookDeliveryEvent,
} from '../domain/webhookDelivery.ts';
import { signingSecrets, webhookEndpointDecider, webhookEndpointStream, type WebhookEndpointState } from '../domain/webhookEndpoint.ts';
import type { ReadStore } from '../../../platform/readStore/index.ts';
import { WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, webhookProjection, type DeliveryDoc, type EndpointDoc } from '../webhookProjection.ts';
import { InFlight, orderKey } from './inFlight.ts';

/** What an attempt keeps of the receiver's answer. */
const RESPONSE_EXCERPT_CHARS = 1024;
const DUE_BATCH = 1000;
/** Pages a pass reads at most while it finds too little it may send. */
const DUE_PAGES = 10;
/** Attempts' records gather this long, or this many, to share one commit of the log. */
const GATHER_MS = 5;
const GATHER_MAX = 64;

export type DispatchOptions = {
  box: SecretBox;
  logger: Logger;
  signal: AbortSignal;
  concurrency: number;
  perEndpoint: number;
  /** Keep-alive connections shared by the attempts (guardedAgent); absent, one per attempt. */
  agent?: Agent;
  dueBatch?: number;
};

/**
 * The due deliveries that go first for their resource and endpoint: the oldest pending one of
 * each key in the log (due or waiting for a retry) may go, wherever it stands in `due`.
 */
async function firstOfTheirResource(services: Services, due: readonly DeliveryDoc[]): Promise<DeliveryDoc[]> {
  if (due.length === 0) return [];
  const newest = Math.max(...due.map((d) => d.position));
  const pending = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
    filter: {
      status: 'pending',
      endpoint_id: { $in: [...new Set(due.map((d) => d.endpoint_id))] },
      resource: { $in: [...new Set(due.map((d) => d.resource))] },
      position: { $lt: newest },
    },
  });
  const oldest = new Map<string, number>();
  for (const p of pending) {
    const key = orderKey(p.endpoint_id, p.resource);
    const at = oldest.get(key);
    if (at === undefined || p.position < at) oldest.set(key, p.position);
  }
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
 * A page of the deliveries due at `now`, earliest due first (read off the projection's index),
 * those to the `busy` endpoints left out: a hanging endpoint's backlog would fill every page.
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
 * Resolves true once the webhooks read models have applied the log up to `position`. Only they
 * are waited for: under load the others may lag, and would hold every delivery back.
 */
export async function webhooksApplied(services: Services, position: number, timeoutMs: number): Promise<boolean> {
  const runner = services.projections;
  if (!runner) return true;
  const end = Date.now() + timeoutMs;
  for (;;) {
    const at = runner.checkpointOf(webhookProjection.name);
    // A runner that does not run it here (another process does): the whole runner's word.
    if (at === undefined) return runner.waitFor(position, Math.max(0, end - Date.now()));
    if (at !== null && at >= position) return true;
    if (Date.now() >= end) return false;
    await new Promise((r) => setTimeout(r, 5));
  }
}

export type Dispatcher = {
  /** Asks for a pass once the read model shows the log up to `position` (deliveries just recorded). */
  poke(position: number | null): void;
  /** Waits for the pass under way and every call it started (the caller aborts `signal` first to end them). */
  stop(): Promise<void>;
};

/**
 * Sends the due deliveries, each attempted once per pass and recorded on its stream. A pass does
 * not wait for its calls, so a hanging endpoint holds up only its own; it reads on while it has
 * claimed under half a page, so deliveries held behind a retry cannot fill every page. Each is
 * checked against its own stream before the call: a lagging read model cannot cause a second try.
 */
export function startDispatcher(services: Services, options: DispatchOptions, pollMs: number): Dispatcher {
  const inFlight = new InFlight(options.concurrency, options.perEndpoint);
  const dueBatch = options.dueBatch ?? DUE_BATCH;
  const calls = new Set<Promise<void>>();
  /** Endpoints the last pass left due deliveries of: their next record asks for another pass. */
  let resume = new Set<string>();
  /** The last pass claimed a full page: more may be due once the calls waiting for a slot thin out. */
  let more = false;
  /** This process's latest record: a pass first waits for the read model to show it, so it does not find it still due. */
  let written = -1;
  let pass: Promise<void> | null = null;
  let again = false;
  let timer: NodeJS.Timeout | null = null;
  let stopped = false;
  let gathering: { count: number; go: () => void; ready: Promise<void> } | null = null;

  /** Resolves when the records gathered with this one may be written. */
  const gathered = (): Promise<void> => {
    if (!gathering) {
      let go!: () => void;
      const ready = new Promise<void>((resolve) => (go = resolve));
      const current = { count: 0, go, ready };
      const timeout = setTimeout(() => {
        if (gathering === current) gathering = null;
        go();
      }, GATHER_MS);
      void ready.then(() => clearTimeout(timeout));
      gathering = current;
    }
    const current = gathering;
    if (++current.count >= GATHER_MAX) {
      gathering = null;
      current.go();
    }
    return current.ready;
  };

  const run = (): void => {
    if (stopped) return;
    if (pass) {
      again = true;
      return;
    }
    if (timer) clearTimeout(timer);
    pass = (async () => {
      try {
        do {
          again = false;
          if (written >= 0) await webhooksApplied(services, written, 10_000);
          more = await claimDue();
          // A full page claimed: go on now unless a page's worth already waits for slots.
          if (more && inFlight.queued() < options.concurrency) again = true;
        } while (again && !stopped);
      } catch (error) {
        if (!stopped) options.logger.error({ err: error }, 'webhook dispatch failed; retrying at the next tick');
      } finally {
        pass = null;
        if (!stopped) timer = setTimeout(run, pollMs);
      }
    })();
  };

  /** One pass: claims what may go and starts its calls; true when it claimed from a full page. */
  const claimDue = async (): Promise<boolean> => {
    const now = Math.floor(services.clock() / 1000);
    const busy = inFlight.busyEndpoints();
    resume = new Set(busy);
    const claimed: DeliveryDoc[] = [];
    let full = false;
    for (let page = 0; page < DUE_PAGES && claimed.length < dueBatch / 2; page++) {
      const due = await dueDeliveries(services.readStore, now, busy, dueBatch, page * dueBatch);
      const ready = new Set(await firstOfTheirResource(services, due));
      for (const d of due) {
        if (!ready.has(d)) resume.add(d.endpoint_id);
        else if (inFlight.claim(d.id)) claimed.push(d);
      }
      full = due.length === dueBatch;
      if (!full) break;
    }
    const endpoints = endpointsOfPass(services);
    for (const d of claimed) {
      const call = attempt(d, endpoints);
      calls.add(call);
      void call.finally(() => calls.delete(call));
    }
    return full && claimed.length > 0;
  };

  /**
   * A claimed delivery attempted in one of its endpoint's slots; the claim is released once its
   * outcome is written. One that cannot be attempted or recorded is logged and stays due.
   */
  const attempt = async (d: DeliveryDoc, endpoints: (id: string) => Promise<WebhookEndpointState | null>): Promise<void> => {
    try {
      const made = await inFlight.slot(d.endpoint_id, () => (options.signal.aborted ? Promise.resolve(null) : attemptAndRecord(services, d.id, options, endpoints, gathered)));
      if (!made) return;
      const position = await made.recording;
      if (position !== null) written = Math.max(written, position);
      if ((more && inFlight.queued() < options.concurrency) || (resume.has(d.endpoint_id) && inFlight.held(d.endpoint_id) < options.perEndpoint)) {
        more = false;
        resume.delete(d.endpoint_id);
        run();
      }
    } catch (error) {
      options.logger.error({ err: error, delivery: d.id }, 'webhook delivery could not be attempted');
    } finally {
      inFlight.release(d.id);
    }
  };

  run();
  return {
    poke(position) {
      if (position !== null) written = Math.max(written, position);
      run();
    },
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await pass;
      await Promise.all(calls);
    },
  };
}

/** Endpoints as their streams say, read once per pass rather than once per delivery. */
function endpointsOfPass(services: Services): (id: string) => Promise<WebhookEndpointState | null> {
  const loaded = new Map<string, Promise<WebhookEndpointState | null>>();
  return (id) => {
    let found = loaded.get(id);
    if (!found) loaded.set(id, (found = loadWebhookEndpoint(services, id)));
    return found;
  };
}

/** Signers by sealed secret, per box: a secret is opened once, not once per call (bounded). */
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
  const occurred_at = Math.floor(services.clock() / 1000);
  return { store: services.store, metadata: { correlation_id: correlation, actor: { type: 'system', name: 'webhooks' }, organization_id: organizationId, occurred_at } };
}

/**
 * Attempts one delivery if its stream says it is due; resolves once the call is made, with the
 * recording of its outcome under way (resolving with the record's position). Null when no call
 * was made: not due, its endpoint gone or disabled (then it is abandoned), or the job stopped
 * mid-call (nothing recorded: the next run sends it again with the same webhook-id).
 */
async function attemptAndRecord(
  services: Services,
  id: string,
  options: DispatchOptions,
  endpoints: (id: string) => Promise<WebhookEndpointState | null>,
  gathered: () => Promise<void>,
): Promise<{ recording: Promise<number | null> } | null> {
  const stream = webhookDeliveryStream(id);
  const known = await services.store.readStream(stream);
  const state = fold(webhookDeliveryDecider, known as unknown as WebhookDeliveryEvent[]);
  const now = Math.floor(services.clock() / 1000);
  if (state.id === null || state.status !== 'pending' || state.next_attempt_at === null || state.next_attempt_at > now) return null;
  const context = () => webhookContext(services, state.organization_id, `webhook_${state.event_id}`);
  const endpoint = await endpoints(state.endpoint_id);
  if (!endpoint || !endpoint.enabled) {
    await handleCommand(context(), stream, webhookDeliveryDecider, { type: 'Abandon', reason: endpoint ? 'endpoint_disabled' : 'endpoint_deleted', now }, { known });
    return null;
  }
  const outcome = await callOnce(services, state, endpoint, options);
  if (!outcome) return null;
  // The attempt's time is its answer's, not its record's.
  const after = Math.floor(services.clock() / 1000);
  const recording = gathered().then(async () => {
    // The stream as read: no second read unless another writer moved it.
    const recorded = await handleCommand(context(), stream, webhookDeliveryDecider, { type: 'RecordAttempt', outcome, now: after }, { known });
    if (!outcome.success) await disableIfFailingTooLong(services, state.endpoint_id, state.organization_id, after, options.logger);
    return recorded.position;
  });
  return { recording };
}

/** Signs and POSTs one webhook to its endpoint: its outcome, or null when the job stopped mid-call. */
async function callOnce(services: Services, message: { event_id: string; payload: string }, endpoint: WebhookEndpointState, options: DispatchOptions): Promise<AttemptOutcome | null> {
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
    signal: options.signal,
    // Our own JSON and headers: no `vet` on every call, as a seller's template gets.
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
async function disableIfFailingTooLong(services: Services, endpointId: string, organizationId: string, now: number, logger: Logger): Promise<void> {
  const doc = await services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpointId);
  if (!doc?.enabled || doc.failing_since === null || now - doc.failing_since < DISABLE_AFTER_FAILING_SECONDS) return;
  const result = await handleCommand(webhookContext(services, organizationId, `webhook_endpoint_${endpointId}`), webhookEndpointStream(endpointId), webhookEndpointDecider, {
    type: 'DisableFailing',
    failingSince: doc.failing_since,
    now,
  });
  if (result.events.length > 0) logger.info({ endpoint: endpointId, organization: organizationId, failing_since: doc.failing_since }, 'webhook endpoint disabled: its deliveries failed for five days');
}
