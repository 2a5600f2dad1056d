import type { Doc, WriteOp } from './readStore.ts';

/**
 * The documents one projection runner last read or committed, so a later batch that updates them
 * (a workflow's completion, a trigger's counter) does not read and parse them back from the store.
 *
 * Valid only while this runner is the one writing the projection: every commit is a
 * compare-and-set of the projection's checkpoint, so once another writer (the CLI catching up, a
 * rebuild) has committed, our next commit fails with a checkpoint conflict before anything read
 * from here is written, and the runner starts again from the stored checkpoint with a new cache.
 */
export class DocCache {
  // A map per collection, keyed by id: no key string built per lookup.
  private readonly collections = new Map<string, Map<string, Doc>>();

  /** `max` documents per collection (a busy catch URL's workflows can lag their start by tens of thousands). */
  constructor(private readonly max = 50_000) {}

  get(collection: string, id: string): Doc | undefined {
    return this.collections.get(collection)?.get(id);
  }

  /** A document as read from the store (null: there is none, which is not remembered). */
  remember(collection: string, doc: Doc | null): void {
    if (doc) this.set(collection, doc);
  }

  /** The writes of a batch that has just been committed. */
  committed(ops: readonly WriteOp[]): void {
    for (const op of ops) {
      if (op.op === 'upsert') this.set(op.collection, op.doc);
      else this.collections.get(op.collection)?.delete(op.id);
    }
  }

  private set(collection: string, doc: Doc): void {
    let docs = this.collections.get(collection);
    if (!docs) this.collections.set(collection, (docs = new Map()));
    // Map order is insertion order: re-inserting keeps the most recently used at the end.
    docs.delete(doc.id);
    docs.set(doc.id, doc);
    if (docs.size > this.max) docs.delete(docs.keys().next().value!);
  }
}
