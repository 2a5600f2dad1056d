import type { RecordedEvent } from '../eventStore/eventStore.ts';
import type { Doc } from '../readStore/readStore.ts';

/** What a projection may do while applying events: read its own documents and write them. */
export interface ProjectionTx {
  get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null>;
  upsert(collection: string, doc: Doc): void;
  delete(collection: string, id: string): void;
}

/**
 * A read model: the events it cares about and how each changes its documents. Applying an event
 * must depend only on the event and the documents, so a rebuild gives the same read model.
 */
export type Projection = {
  name: string;
  /**
   * The version of its code (1 when absent). Raise it when a change to `apply` would build
   * different documents from the events already in the log: on its next start every process
   * rebuilds the read models the old code built (see upgradeProjections).
   */
  version?: number;
  /** Collections it owns: a rebuild drops them. */
  collections: string[];
  /**
   * Collections it only writes (never `tx.get`s): their documents are not kept in the runner's
   * document cache, where they would only take memory (the automation projection's received
   * samples carry whole webhook payloads).
   */
  writeOnly?: readonly string[];
  /** Fields its queries filter or sort on, per collection. */
  indexes?: Array<{ collection: string; fields: string[] }>;
  /** Event types it applies; others only move its checkpoint. `all`: every event (it filters itself). */
  eventTypes: readonly string[] | 'all';
  apply(event: RecordedEvent, tx: ProjectionTx): Promise<void> | void;
};
