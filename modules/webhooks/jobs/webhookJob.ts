import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { guardedAgent } from '../../../platform/outbound/index.ts';
import { secretBox } from '../../../platform/lib/index.ts';
import { SOURCE_STREAM_PREFIXES } from '../domain/eventTypes.ts';
import { followFromCheckpoint, type Logger } from '../../../platform/es/index.ts';
import { startDispatcher } from './webhookDispatch.ts';
import { fanOut } from './webhookFanout.ts';

export const WEBHOOK_FANOUT_CHECKPOINT = 'webhook_fanout';
// Large: each batch costs a projection wait and a checkpoint commit, so a backlog drains fast.
const BATCH_EVENTS = 2000;
/**
 * Calls at once, to one endpoint and in all. The agent keeps CONCURRENCY connections per origin,
 * so a hanging endpoint holds only its PER_ENDPOINT and others on its origin go on.
 */
const PER_ENDPOINT = 16;
const CONCURRENCY = 64;

/**
 * The fan-out: a log subscriber (from its checkpoint) that records each announced event's
 * deliveries, pending; `recorded` hears the log position of each batch's last record.
 */
export function followFanOut(services: Services, logger: Logger, recorded: (position: number) => void) {
  return followFromCheckpoint(services, logger, {
    checkpoint: WEBHOOK_FANOUT_CHECKPOINT,
    streamPrefixes: SOURCE_STREAM_PREFIXES,
    batchSize: BATCH_EVENTS,
    async handle(events) {
      const position = await fanOut(services, events);
      if (position !== null) recorded(position);
    },
    remedy: `restore the read store that goes with this log, or delete the checkpoint ${WEBHOOK_FANOUT_CHECKPOINT} to announce the log's events again (each delivery is recorded once per endpoint and event)`,
    failure: 'webhook fan-out failed; retrying from its checkpoint',
  });
}

export type WebhookJobOptions = {
  /** How often the dispatcher looks for due deliveries (retries, resends) when nothing pokes it. */
  pollMs?: number;
  dueBatch?: number;
};

/**
 * Event webhooks: a log subscriber (from its checkpoint) that records each announced event's
 * deliveries, pending, and a dispatcher that sends the due ones and records each attempt.
 */
export function webhookJob(jobOptions: WebhookJobOptions = {}): BackgroundJob {
  return {
    name: 'webhooks',
    async start(services: Services, logger: Logger) {
      const controller = new AbortController();
      const c = services.config;
      const agent = guardedAgent({ allowHosts: c.WEBHOOK_ALLOW_HOSTS, timeoutMs: c.WEBHOOK_TIMEOUT_MS, connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS, connections: CONCURRENCY });
      const dispatcher = startDispatcher(
        services,
        { box: secretBox(services.secrets.jwt), logger, signal: controller.signal, concurrency: CONCURRENCY, perEndpoint: PER_ENDPOINT, agent, ...(jobOptions.dueBatch !== undefined ? { dueBatch: jobOptions.dueBatch } : {}) },
        jobOptions.pollMs ?? 1000,
      );
      const following = await followFanOut(services, logger, (position) => dispatcher.poke(position));

      return {
        async stop() {
          controller.abort();
          // Ends the calls under way (they carry no signal of their own): reported as aborted, not recorded.
          const closing = agent.destroy().catch(() => undefined);
          await following.stop();
          await dispatcher.stop();
          await closing;
        },
      };
    },
  };
}

export const webhooksJob = webhookJob();
