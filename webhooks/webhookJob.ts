import type { BackgroundJob, Services } from '../app/services.ts';
import { secretBox } from '../commands/webhooks/secretBox.ts';
import { SOURCE_STREAM_PREFIXES } from '../domain/webhooks/eventTypes.ts';
import type { Logger } from '../projections/projectionRunner.ts';
import { CheckpointConflictError } from '../readStore/readStore.ts';
import { dispatchDue } from './webhookDispatch.ts';
import { fanOut } from './webhookFanout.ts';

export const WEBHOOK_FANOUT_CHECKPOINT = 'webhook_fanout';
const BATCH_EVENTS = 200;
const CONCURRENCY = 16;

export type WebhookJobOptions = {
  /**
   * How often the dispatcher looks for due deliveries (retries, resends, deliveries another
   * process created). Deliveries this process fans out are sent at once, without waiting for it.
   */
  pollMs?: number;
};

/**
 * Event webhooks: a subscriber of the log (from its checkpoint) that fans announced events out into
 * recorded deliveries, and a dispatcher that attempts the due ones, on a timer and whenever the
 * fan-out created some. Due times are recorded, so nothing waits in memory across a restart.
 */
export function webhookJob(jobOptions: WebhookJobOptions = {}): BackgroundJob {
  const pollMs = jobOptions.pollMs ?? 1000;
  return {
    name: 'webhooks',
    async start(services: Services, logger: Logger) {
      const controller = new AbortController();
      const box = secretBox(services.secrets.jwt);
      let stopped = false;

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
              await dispatchDue(services, { box, logger, signal: controller.signal, concurrency: CONCURRENCY });
            } while (again && !stopped);
          } catch (error) {
            if (!stopped) logger.error({ err: error }, 'webhook dispatch failed; retrying at the next tick');
          } finally {
            pass = null;
            if (!stopped) timer = setTimeout(dispatch, pollMs);
          }
        })();
      };
      dispatch();

      let current: { stop(): Promise<void> } | null = null;
      const loop = (async () => {
        while (!stopped) {
          let checkpoint = await services.readStore.readCheckpoint(WEBHOOK_FANOUT_CHECKPOINT);
          const subscription = services.store.subscribe(
            async (events) => {
              const created = await fanOut(services, events);
              const next = events[events.length - 1]!.position;
              await services.readStore.commit(WEBHOOK_FANOUT_CHECKPOINT, [], { expected: checkpoint, next });
              checkpoint = next;
              if (created !== null) {
                // The dispatcher finds deliveries in their read model: let it apply them first.
                await services.projections?.waitFor(created, 10_000);
                dispatch();
              }
            },
            { after: checkpoint, batchSize: BATCH_EVENTS, streamPrefixes: SOURCE_STREAM_PREFIXES },
          );
          current = subscription;
          try {
            await subscription.done;
          } catch (error) {
            if (stopped || error instanceof CheckpointConflictError) continue;
            logger.error({ err: error }, 'webhook fan-out failed; retrying from its checkpoint');
            await new Promise((r) => setTimeout(r, 1000));
          }
        }
      })();

      return {
        async stop() {
          stopped = true;
          controller.abort();
          if (timer) clearTimeout(timer);
          await current?.stop();
          await loop;
          await pass;
        },
      };
    },
  };
}

export const webhooksJob = webhookJob();
