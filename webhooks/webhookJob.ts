import type { BackgroundJob, Services } from '../app/services.ts';
import { guardedAgent } from '../automation/sendWebhook.ts';
import { secretBox } from '../commands/webhooks/secretBox.ts';
import { SOURCE_STREAM_PREFIXES } from '../domain/webhooks/eventTypes.ts';
import { followFromCheckpoint } from '../projections/followFromCheckpoint.ts';
import type { Logger } from '../projections/projectionRunner.ts';
import { deliverCreated } from './deliverCreated.ts';
import { InFlight } from './inFlight.ts';
import { SeenStreams } from './seenStreams.ts';
import { dispatchPass } from './webhookDispatch.ts';
import { fanOut } from './webhookFanout.ts';
import { webhooksApplied } from './webhooksApplied.ts';

export const WEBHOOK_FANOUT_CHECKPOINT = 'webhook_fanout';
// Large batches: each costs a projection wait, the deliveries' group commit and a checkpoint
// commit, however many events it holds, so a backlog (a burst of sales, a restart) drains fast.
const BATCH_EVENTS = 2000;
const CONCURRENCY = 16;
/**
 * Deliveries held in memory for the direct sends at most (their bodies, about 1.5 KB each): past
 * it (a backlog after a restart, a burst to slow receivers) a batch's deliveries are left to the
 * dispatcher, which takes them from the read model a pass at a time.
 */
const MAX_HELD = 5_000;

export type WebhookJobOptions = {
  /**
   * How often the dispatcher looks for due deliveries (retries, resends, deliveries another
   * process created). Deliveries this process fans out are sent at once, without waiting for it.
   */
  pollMs?: number;
  /** Deliveries held in memory for the direct sends at most (MAX_HELD). */
  maxHeld?: number;
};

/**
 * Event webhooks: a subscriber of the log (from its checkpoint) that fans announced events out into
 * recorded deliveries and sends them at once from memory, and a dispatcher that attempts the due
 * ones the read model shows (retries, resends, what a restart left, what the direct sends left to
 * it), on a timer and when poked. Due times are recorded, so nothing waits in memory across a restart.
 */
export function webhookJob(jobOptions: WebhookJobOptions = {}): BackgroundJob {
  const pollMs = jobOptions.pollMs ?? 1000;
  const maxHeld = jobOptions.maxHeld ?? MAX_HELD;
  return {
    name: 'webhooks',
    async start(services: Services, logger: Logger) {
      const controller = new AbortController();
      const box = secretBox(services.secrets.jwt);
      const c = services.config;
      // Keep-alive connections per endpoint origin, up to the dispatcher's concurrency.
      const agent = guardedAgent({ allowHosts: c.WEBHOOK_ALLOW_HOSTS, timeoutMs: c.WEBHOOK_TIMEOUT_MS, connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS, connections: CONCURRENCY });
      let stopped = false;
      const inFlight = new InFlight(CONCURRENCY);
      // Deliveries earlier runs left pending are judged by the read model once it has applied them.
      inFlight.startedAt(await services.store.headPosition());
      const options = { box, logger, signal: controller.signal, concurrency: CONCURRENCY, agent, inFlight };
      const direct = new Set<Promise<void>>();
      let held = 0;
      const seen = new SeenStreams();

      // The dispatcher: one pass at a time; a poke during a pass asks for one more after it.
      let pass: Promise<void> | null = null;
      let again = false;
      let timer: NodeJS.Timeout | null = null;
      const dispatch = (): void => {
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
              const { full } = await dispatchPass(services, options);
              // A full batch: more are due now, without waiting for the timer.
              if (full) again = true;
            } while (again && !stopped);
          } catch (error) {
            if (!stopped) logger.error({ err: error }, 'webhook dispatch failed; retrying at the next tick');
          } finally {
            pass = null;
            if (!stopped) timer = setTimeout(dispatch, pollMs);
          }
        })();
      };
      const following = await followFromCheckpoint(services, logger, {
        checkpoint: WEBHOOK_FANOUT_CHECKPOINT,
        streamPrefixes: SOURCE_STREAM_PREFIXES,
        batchSize: BATCH_EVENTS,
        async handle(events) {
          const created = await fanOut(services, events, seen);
          if (!created || created.length === 0) return;
          // Sent while the fan-out goes on with the next batch (their creations are recorded: a
          // crash now leaves them due for the dispatcher). What these sends leave over is the
          // dispatcher's, poked once the read model shows it.
          const last = created.at(-1)!.position;
          if (held + created.length > maxHeld) {
            void webhooksApplied(services, last, 10_000).then(dispatch, dispatch);
            return;
          }
          held += created.length;
          const sending: Promise<void> = deliverCreated(services, created, options)
            .then((left) => (left > 0 ? webhooksApplied(services, last, 10_000).then(dispatch) : undefined))
            .catch((error: unknown) => {
              if (!stopped) logger.error({ err: error }, 'webhook direct sends failed; the dispatcher takes them over');
              dispatch();
            })
            .finally(() => {
              held -= created.length;
              direct.delete(sending);
            });
          direct.add(sending);
        },
        remedy: `restore the read store that goes with this log, or delete the checkpoint ${WEBHOOK_FANOUT_CHECKPOINT} to announce the log's events again (each delivery is recorded once per endpoint and event)`,
        failure: 'webhook fan-out failed; retrying from its checkpoint',
      });
      dispatch();

      return {
        async stop() {
          stopped = true;
          controller.abort();
          // Ends the calls under way (they carry no signal of their own): reported as aborted, not recorded.
          const closing = agent.destroy().catch(() => undefined);
          if (timer) clearTimeout(timer);
          await following.stop();
          await Promise.all(direct);
          await pass;
          await inFlight.drain();
          await closing;
        },
      };
    },
  };
}

export const webhooksJob = webhookJob();
