import type { Doc, ReadStore, WriteOp } from './readStore.ts';
import type { ProjectionTx } from './projection.ts';

/**
 * Buffers one batch's writes so they reach the store in a single commit with the checkpoint.
 * Reads see the batch's own earlier writes first.
 */
export class UnitOfWork implements ProjectionTx {
  private readonly writes = new Map<string, WriteOp>();

  constructor(private readonly store: ReadStore) {}

  async get<T extends Doc = Doc>(collection: string, id: string): Promise<T | null> {
    const pending = this.writes.get(key(collection, id));
    if (pending) return pending.op === 'upsert' ? (structuredClone(pending.doc) as T) : null;
    return this.store.get<T>(collection, id);
  }

  upsert(collection: string, doc: Doc): void {
    this.writes.set(key(collection, doc.id), { op: 'upsert', collection, doc: structuredClone(doc) });
  }

  delete(collection: string, id: string): void {
    this.writes.set(key(collection, id), { op: 'delete', collection, id });
  }

  ops(): WriteOp[] {
    return [...this.writes.values()];
  }
}

const key = (collection: string, id: string) => `${collection}\u0000${id}`;
