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
  // data of recent events is kept, frozen as the store's events are, until the vault forgets its
  // keys (an erasure), so an erased person's data is not served from here either.
  const opened = new Map<string, { generation: number; data: unknown }>();
  async function open<E extends RecordedEvent>(event: E): Promise<E> {
    if (!table[event.type]) return event;
    const generation = vault.generation ? await vault.generation() : null;
    const hit = generation === null ? undefined : opened.get(event.id);
    if (hit && hit.generation === generation) return { ...event, data: hit.data };
    const data = deepFreeze(await openEventData(vault, table, event.type, event.data));
    if (generation !== null) {
      opened.delete(event.id);
      opened.set(event.id, { generation, data });
      if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
    }
    return { ...event, data };
  }
  const openAll = async (events: RecordedEvent[]) => (events.some((e) => table[e.type]) ? Promise.all(events.map(open)) : events);
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
