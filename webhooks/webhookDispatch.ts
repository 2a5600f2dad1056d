import { performance } from 'node:perf_hooks';
import { Webhook } from 'standardwebhooks';
import type { Services } from '../app/services.ts';
import { retryable, sendOnce } from '../automation/sendWebhook.ts';
import type { EventMetadata } from '../eventStore/eventStore.ts';
import { handleCommand, type CommandContext } from '../commands/handleCommand.ts';
import type { SecretBox } from '../commands/webhooks/secretBox.ts';
import { loadWebhookEndpoint } from '../commands/webhooks/webhookEndpointCommands.ts';
import { fold } from '../domain/shared/decider.ts';
import {
  DISABLE_AFTER_FAILING_SECONDS,
  webhookDeliveryDecider,
  webhookDeliveryStream,
  type AttemptOutcome,
  type WebhookDeliveryEvent,
} from '../domain/webhooks/webhookDelivery.ts';
import { signingSecrets, webhookEndpointDecider, webhookEndpointStream } from '../domain/webhooks/webhookEndpoint.ts';
import type { Logger } from '../projections/projectionRunner.ts';
import { WEBHOOK_DELIVERIES, WEBHOOK_ENDPOINTS, type DeliveryDoc, type EndpointDoc } from '../projections/webhooks/webhookProjection.ts';

/** What an attempt keeps of the receiver's answer. */
export const RESPONSE_EXCERPT_CHARS = 1024;
const USER_AGENT = 'commerce-service-webhooks/0.1';
const DUE_BATCH = 200;

export type DispatchOptions = { box: SecretBox; logger: Logger; signal: AbortSignal; concurrency: number };

/**
 * One pass: every delivery due now is attempted once, oldest first, and never ahead of an older
 * delivery of the same resource to the same endpoint that is still pending (in order per
 * resource). The read model only finds candidates: each is checked against its own stream before
 * the call, so a lagging read model cannot make a second attempt out of one that was recorded.
 */
export async function dispatchDue(services: Services, options: DispatchOptions): Promise<number> {
  const now = Math.floor(services.clock() / 1000);
  const due = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
    filter: { status: 'pending', next_attempt_at: { $lte: now } },
    sort: [['position', 1]],
    limit: DUE_BATCH,
  });
  const seen = new Set<string>();
  const ready: DeliveryDoc[] = [];
  for (const d of due) {
    const key = `${d.endpoint_id}|${d.resource}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const earlier = await services.readStore.count(WEBHOOK_DELIVERIES, { endpoint_id: d.endpoint_id, resource: d.resource, status: 'pending', position: { $lt: d.position } });
    if (earlier === 0) ready.push(d);
  }
  let next = 0;
  let attempted = 0;
  const worker = async () => {
    while (next < ready.length && !options.signal.aborted) {
      const id = ready[next++]!.id;
      try {
        if (await attemptDelivery(services, id, options)) attempted += 1;
      } catch (error) {
        // One delivery that cannot be attempted (its record conflicted, its secret cannot be opened
        // under this service secret) must not hold up the others; it stays due for the next pass.
        options.logger.error({ err: error, delivery: id }, 'webhook delivery could not be attempted');
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.concurrency, ready.length) }, worker));
  return attempted;
}

function context(services: Services, organizationId: string, correlation: string): CommandContext {
  const metadata: EventMetadata = {
    correlation_id: correlation,
    actor: { type: 'system', name: 'webhooks' },
    organization_id: organizationId,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

/** Attempts one delivery if its stream says it is due; records the outcome. True when a call was made. */
export async function attemptDelivery(services: Services, id: string, options: DispatchOptions): Promise<boolean> {
  const stream = webhookDeliveryStream(id);
  const recorded = await services.store.readStream(stream);
  const state = fold(webhookDeliveryDecider, recorded as unknown as WebhookDeliveryEvent[]);
  const nowMs = services.clock();
  const now = Math.floor(nowMs / 1000);
  if (state.id === null || state.status !== 'pending' || state.next_attempt_at === null || state.next_attempt_at > now) return false;
  const ctx = () => context(services, state.organization_id, `webhook_${state.event_id}`);
  const endpoint = await loadWebhookEndpoint(services, state.endpoint_id);
  if (!endpoint || !endpoint.enabled) {
    await handleCommand(ctx(), stream, webhookDeliveryDecider, { type: 'Abandon', reason: endpoint ? 'endpoint_disabled' : 'endpoint_deleted', now }, { known: recorded });
    return false;
  }
  const timestamp = new Date(nowMs);
  // One signature per secret in force: during a rotation's overlap receivers holding either verify.
  const signature = signingSecrets(endpoint, now)
    .map((sealed) => new Webhook(options.box.open(sealed)).sign(state.event_id, timestamp, state.payload))
    .join(' ');
  const headers = {
    'content-type': 'application/json',
    'user-agent': USER_AGENT,
    'webhook-id': state.event_id,
    'webhook-timestamp': String(Math.floor(nowMs / 1000)),
    'webhook-signature': signature,
  };
  const c = services.config;
  const started = performance.now();
  const result = await sendOnce(endpoint.url, state.payload, headers, {
    allowHosts: c.WEBHOOK_ALLOW_HOSTS,
    timeoutMs: c.WEBHOOK_TIMEOUT_MS,
    connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS,
    maxAttempts: 1,
    retryBaseMs: 0,
    idempotencyKey: state.event_id,
    nowMs: services.clock,
    signal: options.signal,
  });
  // Stopped mid-call: record nothing; the next run attempts it again with the same webhook-id.
  if (result.error === 'aborted') return false;
  const outcome: AttemptOutcome = {
    success: result.success,
    status_code: result.status_code,
    error: result.error ?? null,
    retryable: !result.success && retryable(result),
    duration_ms: Math.round(performance.now() - started),
    response_excerpt: result.response_body.slice(0, RESPONSE_EXCERPT_CHARS),
  };
  services.metrics.webhookResult(result.success);
  const after = Math.floor(services.clock() / 1000);
  await handleCommand(ctx(), stream, webhookDeliveryDecider, { type: 'RecordAttempt', outcome, now: after });
  if (!outcome.success) await disableIfFailingTooLong(services, state.endpoint_id, state.organization_id, after, options.logger);
  return true;
}

/** An endpoint failing (no success at all) for five days is disabled; the event tells its owner why. */
async function disableIfFailingTooLong(services: Services, endpointId: string, organizationId: string, now: number, logger: Logger): Promise<void> {
  const doc = await services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpointId);
  if (!doc?.enabled || doc.failing_since === null || now - doc.failing_since < DISABLE_AFTER_FAILING_SECONDS) return;
  const result = await handleCommand(context(services, organizationId, `webhook_endpoint_${endpointId}`), webhookEndpointStream(endpointId), webhookEndpointDecider, {
    type: 'DisableFailing',
    failingSince: doc.failing_since,
    now,
  });
  if (result.events.length > 0) logger.info({ endpoint: endpointId, organization: organizationId, failing_since: doc.failing_since }, 'webhook endpoint disabled: its deliveries failed for five days');
}
