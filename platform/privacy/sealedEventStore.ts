import type { EventStore, NewEvent, RecordedEvent } from '../eventStore/eventStore.ts';
import { deepFreeze } from '../lib/deepFreeze.ts';
import type { PersonalDataVault } from './personalDataVault.ts';
import { openEventData, sealEventData, type PersonalFieldTable } from './sealing.ts';

/** Events whose opened data is kept in memory, the most recently opened. */
const OPENED_KEPT = 5000;

/**
 * A decorator over any event store adapter: the personal fields the table names are sealed with
 * their person's key when appended, and opened when read (streams, the log, subscriptions). So
 * deciders, projections and subscribers see plain values while the key lives and the erasure's
 * placeholder once it is destroyed, and the log itself never holds them readable.
 */
export function sealPersonalData(store: EventStore, vault: PersonalDataVault, table: PersonalFieldTable): EventStore {
  const seal = (events: NewEvent[]) =>
    Promise.all(
      events.map(async (e) => {
        if (!table[e.type]) return e;
        return { ...e, data: await sealEventData(vault, table, e.type, e.data, e.metadata.organization_id) };
      }),
    );
  // Each projection, subscriber and command reading an event would decrypt it again: the opened
  // event is kept, frozen as the store's events are, until the vault forgets its keys (an
  // erasure), so an erased person's data is not served from here either. Its opening is kept
  // too: every projection's subscription reads a new event at the same moment, and they share one.
  type Opened = { generation: number; opening: Promise<RecordedEvent>; event: RecordedEvent | null };
  const opened = new Map<string, Opened>();
  const generationNow = async () => (vault.generation ? vault.generation() : null);

  /** The event opened, or the opening under way; `generation` null: nothing is kept (no cache to follow). */
  function openIn<E extends RecordedEvent>(event: E, generation: number | null): E | Promise<E> {
    if (!table[event.type]) return event;
    const hit = generation === null ? undefined : opened.get(event.id);
    if (hit && hit.generation === generation) return (hit.event ?? hit.opening) as E | Promise<E>;
    const opening = openEventData(vault, table, event.type, event.data).then((data) => Object.freeze({ ...event, data: deepFreeze(data) }));
    if (generation === null) return opening;
    const entry: Opened = { generation, opening, event: null };
    opened.delete(event.id);
    opened.set(event.id, entry);
    if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
    opening.then(
      (done) => void (entry.event = done),
      // A damaged value is not kept: each reader is told, as it reads.
      () => void (opened.get(event.id) === entry && opened.delete(event.id)),
    );
    return opening;
  }
  const open = async <E extends RecordedEvent>(event: E): Promise<E> => (table[event.type] ? openIn(event, await generationNow()) : event);
  /** Events opened once the vault's generation is known: those opened already, at once. */
  const openAll = async (events: RecordedEvent[]): Promise<RecordedEvent[]> => {
    if (!events.some((e) => table[e.type])) return events;
    const generation = await generationNow();
    let waiting: Promise<void>[] | null = null;
    const out = events.map((e, i) => {
      const o = openIn(e, generation);
      if (!(o instanceof Promise)) return o;
      (waiting ??= []).push(o.then((done) => void (out[i] = done)));
      return e;
    });
    if (waiting) await Promise.all(waiting);
    return out;
  };
  return {
    append: async (stream, events, expected) => store.append(stream, await seal(events), expected),
    atomicAppendMany: store.atomicAppendMany,
    appendMany: async (appends) => store.appendMany(await Promise.all(appends.map(async (a) => ({ ...a, events: await seal(a.events) })))),
    readStream: async (stream) => openAll(await store.readStream(stream)),
    readEvent: async (stream, revision) => {
      const event = await store.readEvent(stream, revision);
      return event ? open(event) : null;
    },
    readAll: async (options) => openAll(await store.readAll(options)),
    headPosition: () => store.headPosition(),
    ...(store.endPosition ? { endPosition: () => store.endPosition!() } : {}),
    subscribe: (handler, options) => store.subscribe(async (events) => handler(await openAll(events)), options),
    ...(store.wake ? { wake: () => store.wake!() } : {}),
    close: async () => {
      await store.close();
      await vault.close();
    },
  };
}
