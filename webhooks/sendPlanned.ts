import { performance } from 'node:perf_hooks';
import type { Services } from '../platform/runtime/services.ts';
import { handleCommand, type CommandResult } from '../platform/es/handleCommand.ts';
import type { RecordedEvent } from '../platform/eventStore/eventStore.ts';
import {
  webhookDeliveryDecider,
  webhookDeliveryStream,
  webhookSentDecider,
  webhookSentStream,
  type AttemptOutcome,
  type SentDelivery,
  type WebhookDeliveryEvent,
  type WebhookDeliveryState,
} from '../domain/webhooks/webhookDelivery.ts';
import { callOnce, disableIfFailingTooLong, endpointsOfPass, oldestPending, recordOutcome, webhookContext, type DispatchOptions } from './webhookDispatch.ts';
import { orderKey, type InFlight } from './inFlight.ts';
import type { PlannedDelivery } from './webhookFanout.ts';

/**
 * How long a batch waits for its calls before it records the slow ones as pending (their outcome
 * is recorded when they end): a hanging receiver must not hold every other seller's webhooks back.
 * It waits BATCH_WAIT_MS at most, and stops sooner once no call has ended for BATCH_IDLE_MS: the
 * calls left then are to receivers that hang, and the next batch waits behind this one.
 */
const BATCH_WAIT_MS = 1000;
const BATCH_IDLE_MS = 200;
/**
 * Deliveries per batch record at most, and their bodies' characters: under EventStoreDB's 1 MiB
 * append, and the record's JSON under V8's large-object size (about 128 KB), which the collector
 * handles apart, at more cost than the small strings a few records make.
 */
const SENT_PER_RECORD = 64;
const SENT_CHARS_PER_RECORD = 96 * 1024;

export type SendPlannedOptions = DispatchOptions & {
  inFlight: InFlight;
  /** How long the batch waits for its calls at most (BATCH_WAIT_MS), and once none has ended for a while (BATCH_IDLE_MS). */
  waitMs?: number;
  idleMs?: number;
  /** False: nothing is called from here, every delivery is recorded pending for the dispatcher. */
  direct?: boolean;
};

export type SentBatch = {
  /** Deliveries recorded pending (left to the dispatcher, or to be retried). */
  pending: number;
  /** The log position of the last record made. */
  position: number | null;
  /** Calls still under way when the batch was recorded: each records its outcome when it ends. */
  late: Promise<void>;
  /** The job stopped during the batch: some deliveries were neither sent nor recorded. */
  stopped: boolean;
};

type Fate = { kind: 'sent' | 'failed'; outcome: AttemptOutcome; at: number };

/**
 * Sends a fan-out batch's planned deliveries at once, from memory, and then records each with
 * what became of it: those that succeeded in one event per endpoint (`WebhookDeliveriesSent`, up
 * to SENT_PER_RECORD or SENT_CHARS_PER_RECORD each), a failed one in a stream of its own with its attempt (the dispatcher
 * retries it), the rest in streams of their own, pending (the dispatcher sends them). A crash
 * before these records sends the batch again from the fan-out's checkpoint, with the same
 * `webhook-id`s.
 *
 * Order: a resource's deliveries to one endpoint go one after the other; a failure leaves the
 * rest to the dispatcher, behind the failed one, and so does an older delivery of the resource
 * still pending. Calls still under way when the batch stops waiting (`waitMs`, or `idleMs` after
 * the last call ended) are recorded pending, claimed until their own outcome is recorded.
 */
export async function sendPlanned(services: Services, planned: readonly PlannedDelivery[], options: SendPlannedOptions): Promise<SentBatch> {
  const { inFlight } = options;
  const groups = new Map<string, PlannedDelivery[]>();
  const claimed: PlannedDelivery[] = [];
  for (const d of planned) {
    // Claimed elsewhere: a late call of an earlier run of this batch records it.
    if (!inFlight.claim(d.id)) continue;
    claimed.push(d);
    const key = orderKey(d.endpointId, d.resource);
    const group = groups.get(key);
    if (group) group.push(d);
    else groups.set(key, [d]);
  }
  if (claimed.length === 0) return { pending: 0, position: null, late: Promise.resolve(), stopped: false };

  const fates = new Map<string, Fate>();
  const under = new Map<string, Promise<AttemptOutcome | null>>();
  let open = options.direct !== false;
  if (open) {
    // The read model must show this process's and earlier runs' records for these keys before its pending deliveries are trusted.
    const shown = await inFlight.applied(services, groups.keys(), 10_000);
    const oldest = shown ? await oldestPending(services, claimed.map((d) => ({ endpoint_id: d.endpointId, resource: d.resource }))) : null;
    const endpoints = endpointsOfPass(services);
    let endedAt = performance.now();
    const sendGroup = async (key: string, group: readonly PlannedDelivery[]) => {
      if (!oldest || oldest.has(key)) return;
      for (const d of group) {
        const endpoint = open ? await endpoints(d.endpointId) : null;
        // Disabled or deleted since the fan-out: recorded pending, the dispatcher abandons it.
        if (!endpoint?.enabled) return;
        const outcome = await inFlight.slot(d.endpointId, async () => {
          if (!open || options.signal.aborted) return undefined;
          const call = callOnce(services, { event_id: d.eventId, payload: d.payload }, endpoint, options);
          under.set(d.id, call);
          return call;
        });
        endedAt = performance.now();
        // Closed while it waited for a slot, or during the call (then the late calls have it).
        if (outcome === undefined || !open) return;
        under.delete(d.id);
        if (outcome === null) return;
        fates.set(d.id, { kind: outcome.success ? 'sent' : 'failed', outcome, at: Math.floor(services.clock() / 1000) });
        if (!outcome.success) return;
      }
    };
    // Each endpoint's groups in log order, taken by as many senders as it has room for calls: a
    // batch's groups do not each hold a promise waiting for a slot, an endpoint that hangs holds
    // up its own groups only, and one with every call taken (by earlier batches' calls to a
    // receiver that hangs, or the dispatcher's) gets none: its deliveries are recorded pending
    // for the dispatcher at once, rather than the batch waiting for its slots.
    const byEndpoint = new Map<string, Array<[string, PlannedDelivery[]]>>();
    for (const entry of groups) {
      const endpointId = entry[1][0]!.endpointId;
      const queue = byEndpoint.get(endpointId);
      if (queue) queue.push(entry);
      else byEndpoint.set(endpointId, [entry]);
    }
    const senders: Array<Promise<void>> = [];
    const roomFor = inFlight.room();
    for (const [endpointId, queue] of byEndpoint) {
      let next = 0;
      const sender = async () => {
        while (next < queue.length) {
          const [key, group] = queue[next++]!;
          await sendGroup(key, group);
        }
      };
      for (let i = 0; i < Math.min(roomFor(endpointId), queue.length); i++) senders.push(sender());
    }
    const sends = Promise.all(senders);
    let timer: NodeJS.Timeout | undefined;
    try {
      const waitMs = options.waitMs ?? BATCH_WAIT_MS;
      const idleMs = Math.min(options.idleMs ?? BATCH_IDLE_MS, waitMs);
      const started = performance.now();
      const stalled = new Promise<void>((resolve) => {
        timer = setInterval(() => {
          const now = performance.now();
          if (now - started >= waitMs || now - endedAt >= idleMs) resolve();
        }, Math.max(5, Math.floor(idleMs / 4)));
      });
      await Promise.race([sends, stalled]);
    } catch (error) {
      // Nothing recorded (the fan-out tries the batch again): the claims go, a call's once it ends.
      open = false;
      for (const d of claimed) {
        const call = under.get(d.id);
        if (call) void call.finally(() => inFlight.release(d.id));
        else inFlight.release(d.id);
      }
      throw error;
    } finally {
      clearInterval(timer);
    }
    open = false;
  }
  return recordFates(services, claimed, fates, under, options);
}

/**
 * A batch's records, made together in log order (the store commits them in one transaction, in
 * the order they were made): the sent ones per endpoint, each failed one with its attempt, the
 * rest pending, a call still under way with its outcome once it ends. Each claim is released once
 * its delivery's record is written.
 */
async function recordFates(
  services: Services,
  claimed: readonly PlannedDelivery[],
  fates: ReadonlyMap<string, Fate>,
  under: ReadonlyMap<string, Promise<AttemptOutcome | null>>,
  options: SendPlannedOptions,
): Promise<SentBatch> {
  const { inFlight } = options;
  const stopped = options.signal.aborted;
  const sentBy = new Map<string, Array<{ d: PlannedDelivery; fate: Fate }>>();
  const records: Array<Promise<unknown>> = [];
  const lateCalls: Array<Promise<void>> = [];
  let pending = 0;
  let position: number | null = null;
  const at = (result: { position: number | null }) => {
    if (result.position !== null && (position === null || result.position > position)) position = result.position;
  };
  const failedEndpoints = new Map<string, string>();
  const release = (d: PlannedDelivery) => inFlight.release(d.id);
  for (const d of claimed) {
    const fate = fates.get(d.id);
    if (fate?.kind === 'sent') {
      const list = sentBy.get(d.endpointId);
      if (list) list.push({ d, fate });
      else sentBy.set(d.endpointId, [{ d, fate }]);
      continue;
    }
    const call = under.get(d.id);
    // Neither sent nor under way nor called, and the job stops: left out, so the checkpoint stays and the next run sends it.
    if (stopped && !fate && !call) {
      release(d);
      continue;
    }
    pending += 1;
    const key = orderKey(d.endpointId, d.resource);
    const written = (result: { position: number | null }) => {
      at(result);
      inFlight.touch(key, result.position);
    };
    const created = create(services, d).then((c) => {
      written(c);
      return c;
    });
    // The stream as created is known: read again only when an earlier run had created it.
    const attempted = async (c: Created, outcome: AttemptOutcome) =>
      written(await recordOutcome(services, { stream: webhookDeliveryStream(d.id), organizationId: d.organizationId, eventId: d.eventId }, outcome, Math.floor(services.clock() / 1000), c.known));
    if (fate) {
      failedEndpoints.set(d.endpointId, d.organizationId);
      records.push(created.then((c) => attempted(c, fate.outcome)).finally(() => release(d)));
    } else if (call) {
      records.push(created);
      // Recorded pending now; its outcome, once known, joins the job's other records.
      lateCalls.push(
        Promise.all([created, call])
          .then(([c, outcome]) => (outcome ? inFlight.record(() => attempted(c, outcome)) : undefined))
          .catch((error: unknown) => options.logger.error({ err: error, delivery: d.id }, 'webhook delivery could not be recorded; it stays pending'))
          .finally(() => release(d)),
      );
    } else records.push(created.finally(() => release(d)));
  }
  for (const [endpointId, list] of sentBy) {
    for (const chunk of inRecords(list)) {
      const first = chunk[0]!.d;
      const deliveries: SentDelivery[] = chunk.map(({ d, fate }) => ({
        id: d.id,
        event_id: d.eventId,
        event_type: d.eventType,
        resource: d.resource,
        payload: d.payload,
        created_at: d.created_at,
        status_code: fate.outcome.status_code,
        duration_ms: fate.outcome.duration_ms,
        response_excerpt: fate.outcome.response_excerpt,
        attempted_at: fate.at,
      }));
      const recorded = handleCommand(
        webhookContext(services, first.organizationId, first.correlation),
        webhookSentStream(first.id),
        webhookSentDecider,
        { type: 'RecordSent', endpointId, organizationId: first.organizationId, deliveries },
        { known: [] },
      );
      records.push(recorded.then(at).finally(() => chunk.forEach(({ d }) => release(d))));
    }
  }
  // Every record settled before any failure is reported: a claim released early would let a replay of the batch skip a delivery.
  const failure = (await Promise.allSettled(records)).find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
  const now = Math.floor(services.clock() / 1000);
  for (const [endpointId, organizationId] of failedEndpoints) await disableIfFailingTooLong(services, endpointId, organizationId, now, options.logger);
  return { pending, position, late: Promise.all(lateCalls).then(() => undefined), stopped };
}

type Created = CommandResult<WebhookDeliveryState, WebhookDeliveryEvent> & { known: RecordedEvent[] };

/** A delivery's own stream, created pending (nothing when an earlier run of the batch created it). */
async function create(services: Services, d: PlannedDelivery): Promise<Created> {
  const { source: _source, correlation: _correlation, created_at: createdAt, ...creation } = d;
  const stream = webhookDeliveryStream(d.id);
  const ctx = webhookContext(services, d.organizationId, d.correlation);
  const result = await handleCommand(
    ctx,
    stream,
    webhookDeliveryDecider,
    { type: 'Create', ...creation, now: createdAt },
    { known: [] },
  );
  // The stream as appended, for the attempt's record without reading it again (a one-event stream is folded whole).
  const known: RecordedEvent[] =
    result.position === null ? [] : [{ id: '', type: result.events[0]!.type, data: result.events[0]!.data, metadata: ctx.metadata, stream, revision: result.revision, position: result.position }];
  return { ...result, known };
}

/** Sent deliveries split into records of at most SENT_PER_RECORD, and SENT_CHARS_PER_RECORD of bodies (one larger alone in its own). */
export function inRecords<T extends { d: PlannedDelivery }>(list: readonly T[]): T[][] {
  const records: T[][] = [];
  let record: T[] = [];
  let chars = 0;
  for (const item of list) {
    if (record.length > 0 && (record.length >= SENT_PER_RECORD || chars + item.d.payload.length > SENT_CHARS_PER_RECORD)) {
      records.push(record);
      record = [];
      chars = 0;
    }
    record.push(item);
    chars += item.d.payload.length;
  }
  if (record.length > 0) records.push(record);
  return records;
}
