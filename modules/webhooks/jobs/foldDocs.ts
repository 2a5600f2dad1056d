import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../../platform/es/index.ts';
import type { Doc } from '../../../platform/readStore/index.ts';

/**
 * Runs a projection's own `apply` over a resource's events in memory: the document its read model
 * would hold right after the last of them, without waiting for (or trusting) a read model that may
 * lag or have moved on since.
 */
export async function foldDocs(projection: Projection, events: readonly RecordedEvent[]): Promise<Map<string, Map<string, Doc>>> {
  const collections = new Map<string, Map<string, Doc>>();
  const of = (name: string) => {
    let c = collections.get(name);
    if (!c) collections.set(name, (c = new Map()));
    return c;
  };
  const tx: ProjectionTx = {
    get: async <T extends Doc>(collection: string, id: string) => (of(collection).get(id) as T | undefined) ?? null,
    upsert: (collection, doc) => void of(collection).set(doc.id, structuredClone(doc)),
    delete: (collection, id) => void of(collection).delete(id),
  };
  for (const event of events) if (projection.eventTypes.includes(event.type)) await projection.apply(event, tx);
  return collections;
}
