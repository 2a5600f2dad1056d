import { Generations } from '../lib/generations.ts';
import type { Doc, WriteOp } from '../readStore/readStore.ts';

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
  private readonly collections = new Map<string, Generations<string, Doc>>();

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

  private generations(collection: string): Generations<string, Doc> {
    let g = this.collections.get(collection);
    if (!g) this.collections.set(collection, (g = new Generations<string, Doc>(Math.max(1, Math.floor(this.max / 2)))));
    return g;
  }
}
