import type { Doc, ReadStore, WriteOp } from '../readStore/readStore.ts';
import type { ProjectionTx } from './projection.ts';
import { deepFreeze } from '../lib/deepFreeze.ts';
import type { DocCache } from './docCache.ts';

/**
 * Buffers one batch's writes so they reach the store in a single commit with the checkpoint.
 * Reads see the batch's own earlier writes first. A written document is frozen, not copied:
 * projections build each new version as a new object (`{ ...doc, field }`), and one that changed
 * a document after writing it, or one read back from the batch, fails loudly instead of
 * changing what is committed; copying would cost every write two copies of its document.
 */
export class UnitOfWork implements ProjectionTx {
  private readonly writes = new Map<string, WriteOp>();

  constructor(
    private readonly store: ReadStore,
    private readonly cache?: DocCache,
  ) {}

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    const pending = this.writes.get(key(collection, id));
    if (pending) return pending.op === 'upsert' ? (pending.doc as T) : null;
    if (!this.cache) return this.store.get<T>(collection, id);
    const cached = this.cache.get(collection, id);
    if (cached) return cached as T;
    // Frozen like the batch's own writes: the cache hands the same object to later batches.
    const doc = await this.store.get<T>(collection, id);
    if (doc) this.cache.remember(collection, deepFreeze(doc));
    return doc;
  }

  upsert(collection: string, doc: Doc): void {
    this.writes.set(key(collection, doc.id), { op: 'upsert', collection, doc: deepFreeze(doc) });
  }

  delete(collection: string, id: string): void {
    this.writes.set(key(collection, id), { op: 'delete', collection, id });
  }

  ops(): WriteOp[] {
    return [...this.writes.values()];
  }
}

const key = (collection: string, id: string) => `${collection}\u0000${id}`;
