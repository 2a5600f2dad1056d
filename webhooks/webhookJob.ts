import type { BackgroundJob, Services } from '../platform/runtime/services.ts';
import { guardedAgent } from '../automation/sendWebhook.ts';
import { secretBox } from '../commands/webhooks/secretBox.ts';
import { SOURCE_STREAM_PREFIXES } from '../domain/webhooks/eventTypes.ts';
import { followFromCheckpoint } from '../platform/es/followFromCheckpoint.ts';
import { WEBHOOK_DELIVERIES, type DeliveryDoc } from '../projections/webhooks/webhookProjection.ts';
import type { Logger } from '../platform/es/projectionRunner.ts';
import { InFlight } from './inFlight.ts';
import { SeenStreams } from './seenStreams.ts';
import { dispatchPass } from './webhookDispatch.ts';
import { fanOut, type PlannedDelivery } from './webhookFanout.ts';
import { sendPlanned } from './sendPlanned.ts';
import { webhooksApplied } from './webhooksApplied.ts';

export const WEBHOOK_FANOUT_CHECKPOINT = 'webhook_fanout';
// Large batches: each costs a projection wait, its records' group commit and a checkpoint commit,
// however many events it holds, so a backlog (a burst of sales, a restart) drains fast.
const BATCH_EVENTS = 2000;
/**
 * Calls at once: PER_ENDPOINT to one endpoint (its origin's keep-alive connections), CONCURRENCY
 * in all, so endpoints that hang hold their own share and the others' webhooks go on.
 */
const PER_ENDPOINT = 16;
const CONCURRENCY = 64;

export type WebhookJobOptions = {
  /**
   * How often the dispatcher looks for due deliveries (retries, resends, deliveries another
   * process created). Deliveries this process fans out are sent at once, without waiting for it.
   */
  pollMs?: number;
  /** False: the fan-out sends nothing itself, every delivery goes through the read model and the dispatcher. */
  direct?: boolean;
  /** How long a fan-out batch waits for its calls at most before it records the slow ones pending (1 s; 0.2 s after the last call ended). */
  batchWaitMs?: number;
  /** Due deliveries the dispatcher reads at a time (1,000). */
  dueBatch?: number;
};

/** The job stopped while a batch was being sent: the fan-out's checkpoint stays before it. */
class StoppedDuringBatch extends Error {}

/**
 * Event webhooks: a subscriber of the log (from its checkpoint) that fans announced events out into
 * deliveries, sends them at once from memory and records what became of each (sendPlanned), and a
 * dispatcher that attempts the due ones the read model shows (retries, resends, what a restart or
 * a slow receiver left), on a timer and when poked. Due times are recorded, so nothing waits in
 * memory across a restart.
 */
export function webhookJob(jobOptions: WebhookJobOptions = {}): BackgroundJob {
  const pollMs = jobOptions.pollMs ?? 1000;
  return {
    name: 'webhooks',
    async start(services: Services, logger: Logger) {
      const controller = new AbortController();
      const box = secretBox(services.secrets.jwt);
      const c = services.config;
      // Keep-alive connections per endpoint origin, as many as one endpoint's calls at once.
      const agent = guardedAgent({ allowHosts: c.WEBHOOK_ALLOW_HOSTS, timeoutMs: c.WEBHOOK_TIMEOUT_MS, connectTimeoutMs: c.WEBHOOK_CONNECT_TIMEOUT_MS, connections: PER_ENDPOINT });
      let stopped = false;
      const inFlight = new InFlight(CONCURRENCY, PER_ENDPOINT);
      // Deliveries earlier runs left pending are judged by the read model once it has applied them.
      const head = await services.store.headPosition();
      inFlight.startedAt(head);
      const options = { box, logger, signal: controller.signal, concurrency: CONCURRENCY, perEndpoint: PER_ENDPOINT, agent, inFlight, direct: jobOptions.direct ?? true, ...(jobOptions.batchWaitMs !== undefined ? { waitMs: jobOptions.batchWaitMs } : {}), ...(jobOptions.dueBatch !== undefined ? { dueBatch: jobOptions.dueBatch } : {}) };
      const late = new Set<Promise<void>>();
      const seen = new SeenStreams();
      // Events up to here may have had their deliveries recorded already (by an earlier run, or
      // by a failed try of a batch): those are looked up before anything is sent again.
      let handledUpTo = head ?? -1;

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
              const { full, late: slow } = await dispatchPass(services, options);
              const tracked = slow.catch((error: unknown) => logger.error({ err: error }, 'webhook dispatch: a call left running failed')).finally(() => late.delete(tracked));
              late.add(tracked);
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
          let planned = await fanOut(services, events, seen);
          if (!planned || planned.length === 0) return;
          if (planned[0]!.source <= handledUpTo) planned = await notRecorded(services, planned);
          handledUpTo = Math.max(handledUpTo, planned.at(-1)?.source ?? -1);
          const sent = await sendPlanned(services, planned, options);
          const tracked = sent.late.finally(() => late.delete(tracked));
          late.add(tracked);
          if (sent.stopped) throw new StoppedDuringBatch();
          // What was left to the dispatcher is poked once the read model shows it.
          if (sent.pending > 0 && sent.position !== null) void webhooksApplied(services, sent.position, 10_000).then(dispatch, dispatch);
        },
        isStop: (error) => error instanceof StoppedDuringBatch,
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
          // The pass first: the calls it leaves running join `late` when it returns.
          await pass;
          await Promise.all(late);
          await inFlight.drain();
          await closing;
        },
      };
    },
  };
}

export const webhooksJob = webhookJob();

/** The planned deliveries the read model does not show recorded yet (once it has applied the log up to its head). */
async function notRecorded(services: Services, planned: PlannedDelivery[]): Promise<PlannedDelivery[]> {
  const head = await services.store.headPosition();
  if (head !== null && !(await webhooksApplied(services, head, 30_000))) throw new Error('webhook fan-out: the read models did not catch up');
  const recorded = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, { filter: { id: { $in: planned.map((d) => d.id) } } });
  const ids = new Set(recorded.map((d) => d.id));
  return planned.filter((d) => !ids.has(d.id));
}
