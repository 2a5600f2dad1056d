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
  private readonly docs = new Map<string, Doc>();

  constructor(private readonly max = 10_000) {}

  get(collection: string, id: string): Doc | undefined {
    return this.docs.get(key(collection, id));
  }

  /** A document as read from the store (null: there is none, which is not remembered). */
  remember(collection: string, doc: Doc | null): void {
    if (doc) this.set(key(collection, doc.id), doc);
  }

  /** The writes of a batch that has just been committed. */
  committed(ops: readonly WriteOp[]): void {
    for (const op of ops) {
      if (op.op === 'upsert') this.set(key(op.collection, op.doc.id), op.doc);
      else this.docs.delete(key(op.collection, op.id));
    }
  }

  private set(k: string, doc: Doc): void {
    // Map order is insertion order: re-inserting keeps the most recently used at the end.
    this.docs.delete(k);
    this.docs.set(k, doc);
    if (this.docs.size > this.max) this.docs.delete(this.docs.keys().next().value!);
  }
}

const key = (collection: string, id: string) => `${collection}\u0000${id}`;
