import type { Doc, Query, ReadStore } from '../readStore/readStore.ts';
import type { Projection } from './projection.ts';

/**
 * Where the read store records, per projection, which version of its code built the read models
 * that are served and where they live: `suffix` names their generation (`''`: the collections and
 * checkpoint under the projection's own names). A rebuild writes a new generation beside the one
 * served and switches this record, one write, once the new one has caught up: nobody reads a
 * half-built read model.
 */
export const PROJECTION_VERSIONS = 'projection_versions';

export type VersionDoc = {
  id: string;
  version: number;
  suffix?: string;
  /** The generation served before this one: kept for readers that have not seen the switch yet. */
  previous?: string;
};

/** A new generation's suffix: by version, and unique, for a rebuild of the same version. */
export function newGeneration(version: number, now = Date.now()): string {
  return `__v${version}_${now.toString(36)}`;
}

/** How one generation's names map onto the store's. */
type Names = { collection: (name: string) => string; checkpoint: (name: string) => string };

const raws = new WeakMap<ReadStore, ReadStore>();

/** The store under a view of this module (or the store itself): what writers of generations use. */
export function rawReadStore(readStore: ReadStore): ReadStore {
  return raws.get(readStore) ?? readStore;
}

function renamed(raw: ReadStore, names: () => Names | Promise<Names>): ReadStore {
  const view: ReadStore = {
    get: async (c, id) => raw.get((await names()).collection(c), id),
    find: async (c, q) => raw.find((await names()).collection(c), q),
    stream: <T extends Doc>(c: string, q?: Query, o?: { batchSize?: number }): AsyncIterable<T[]> => ({
      async *[Symbol.asyncIterator]() {
        yield* raw.stream<T>((await names()).collection(c), q, o);
      },
    }),
    count: async (c, f) => raw.count((await names()).collection(c), f),
    upsert: async (c, d) => raw.upsert((await names()).collection(c), d),
    delete: async (c, id) => raw.delete((await names()).collection(c), id),
    ensureIndex: async (c, fields) => raw.ensureIndex((await names()).collection(c), fields),
    dropIndexesExcept: async (c, declared) => raw.dropIndexesExcept((await names()).collection(c), declared),
    readCheckpoint: async (name) => raw.readCheckpoint((await names()).checkpoint(name)),
    commit: async (name, ops, update) => {
      const n = await names();
      return raw.commit(n.checkpoint(name), ops.map((op) => ({ ...op, collection: n.collection(op.collection) })), update);
    },
    reset: async (name, collections) => {
      const n = await names();
      return raw.reset(n.checkpoint(name), collections.map(n.collection));
    },
    acquireLease: (name, owner, ttlMs, now) => raw.acquireLease(name, owner, ttlMs, now),
    releaseLease: (name, owner) => raw.releaseLease(name, owner),
    close: () => raw.close(),
  };
  raws.set(view, raw);
  return view;
}

/** The store as one generation of one projection sees it: its collections and checkpoint under `suffix`. */
export function generationView(readStore: ReadStore, projection: Projection, suffix: string): ReadStore {
  const raw = rawReadStore(readStore);
  if (suffix === '') return raw;
  const owned = new Set(projection.collections);
  const names: Names = {
    collection: (c) => (owned.has(c) ? `${c}${suffix}` : c),
    checkpoint: (name) => (name === projection.name ? `${name}${suffix}` : name),
  };
  return renamed(raw, () => names);
}

/**
 * The store as readers see it: every projection's collections and checkpoint are those of the
 * generation it serves. The records are read again at most every `maxAgeMs`, so a switch reaches
 * a reader within that (it reads the previous generation, complete, until then).
 */
export function servedReadModels(readStore: ReadStore, projections: readonly Projection[], maxAgeMs = 1000): ReadStore {
  const raw = rawReadStore(readStore);
  const owner = new Map<string, string>();
  for (const p of projections) for (const c of p.collections) owner.set(c, p.name);
  const names = new Set(projections.map((p) => p.name));
  let suffixes = new Map<string, string>();
  let readAt = -Infinity;
  let reading: Promise<Names> | null = null;
  const current: Names = {
    collection: (c) => {
      const p = owner.get(c);
      return p === undefined ? c : `${c}${suffixes.get(p) ?? ''}`;
    },
    checkpoint: (name) => (names.has(name) ? `${name}${suffixes.get(name) ?? ''}` : name),
  };
  const refresh = (): Names | Promise<Names> => {
    if (performance.now() - readAt < maxAgeMs) return current;
    reading ??= raw
      .find<VersionDoc>(PROJECTION_VERSIONS)
      .then((docs) => {
        suffixes = new Map(docs.map((d) => [d.id, d.suffix ?? '']));
        readAt = performance.now();
        return current;
      })
      .finally(() => {
        reading = null;
      });
    return reading;
  };
  return renamed(raw, refresh);
}

/** A projection whose served read models a later version of its code built: this process runs an older one. */
export class ProjectionDowngradeError extends Error {
  override readonly name = 'ProjectionDowngradeError';
  constructor(
    readonly projection: string,
    readonly served: number,
    readonly code: number,
  ) {
    super(
      `projection ${projection}: its read models are served at version ${served}, built by newer code than this process runs (version ${code}); ` +
        'not rebuilding them back (a fleet of mixed versions would rebuild back and forth): run the newer version, or rebuild on purpose with `commerce projections rebuild` from this one',
    );
  }
}
