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
  private readonly collections = new Map<string, Generations>();

  /**
   * About `max` documents per collection (a busy catch URL's workflows can lag their start by
   * tens of thousands); none of the `writeOnly` collections.
   */
  constructor(
    private readonly max = 50_000,
    private readonly writeOnly: ReadonlySet<string> = new Set(),
  ) {}

  get(collection: string, id: string): Doc | undefined {
    return this.collections.get(collection)?.get(id);
  }

  /** A document as read from the store (null: there is none, which is not remembered). */
  remember(collection: string, doc: Doc | null): void {
    if (doc && !this.writeOnly.has(collection)) this.generations(collection).set(doc.id, doc);
  }

  /** The writes of a batch that has just been committed. */
  committed(ops: readonly WriteOp[]): void {
    for (const op of ops) {
      if (this.writeOnly.has(op.collection)) continue;
      if (op.op === 'upsert') this.generations(op.collection).set(op.doc.id, op.doc);
      else this.collections.get(op.collection)?.delete(op.id);
    }
  }

  private generations(collection: string): Generations {
    let g = this.collections.get(collection);
    if (!g) this.collections.set(collection, (g = new Generations(Math.max(1, Math.floor(this.max / 2)))));
    return g;
  }
}

/**
 * Least-recently-used, roughly: writes go to the young map; when it is full it becomes the old
 * one and the previous old one is dropped whole; a hit in the old map moves the document back to
 * the young one. No per-entry bookkeeping, and no walk over a Map's deleted entries (evicting
 * the oldest key one at a time from a big Map cost 6% of a catch load).
 */
class Generations {
  private young = new Map<string, Doc>();
  private old = new Map<string, Doc>();

  constructor(private readonly size: number) {}

  get(id: string): Doc | undefined {
    const doc = this.young.get(id);
    if (doc !== undefined) return doc;
    const aged = this.old.get(id);
    if (aged !== undefined) this.set(id, aged);
    return aged;
  }

  set(id: string, doc: Doc): void {
    if (this.young.size >= this.size && !this.young.has(id)) {
      this.old = this.young;
      this.young = new Map();
    }
    this.young.set(id, doc);
    this.old.delete(id);
  }

  delete(id: string): void {
    this.young.delete(id);
    this.old.delete(id);
  }
}
