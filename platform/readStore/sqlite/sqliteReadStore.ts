import Database from 'better-sqlite3';
import { busyTimeoutOf, openDatabase } from '../../sqlite/openDatabase.ts';
import {
  assertFieldPath,
  CheckpointConflictError,
  type Condition,
  type Doc,
  type Filter,
  type Query,
  type Range,
  type ReadStore,
  inBatches,
  STREAM_BATCH,
  type WriteOp,
} from '../readStore.ts';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS checkpoints (
  name TEXT PRIMARY KEY,
  position INTEGER
);
CREATE TABLE IF NOT EXISTS leases (
  name TEXT PRIMARY KEY,
  owner TEXT NOT NULL,
  expires_at INTEGER NOT NULL
);`;

/**
 * Read store on SQLite: each collection is a table of JSON documents (`rm_<collection>`), filtered
 * and sorted with json_extract, with expression indexes for the fields a caller declares. A table
 * per collection keeps every index to its own rows: a write computes only its collection's index
 * expressions. synchronous=NORMAL: read models can always be rebuilt from the event log, and a
 * checkpoint never gets ahead of the writes it covers.
 */
export function openSqliteReadStore(options: { file: string; busyTimeoutMs?: number; autocheckpointPages?: number }): ReadStore {
  const db = openDatabase(options.file, { synchronous: 'NORMAL', busyTimeoutMs: options.busyTimeoutMs, autocheckpointPages: options.autocheckpointPages });
  db.exec(SCHEMA);

  const readCheckpointStmt = db.prepare<[string], { position: number | null }>(
    'SELECT position FROM checkpoints WHERE name = ?',
  );
  const writeCheckpointStmt = db.prepare(
    'INSERT INTO checkpoints (name, position) VALUES (?, ?) ON CONFLICT (name) DO UPDATE SET position = excluded.position',
  );
  const deleteCheckpointStmt = db.prepare('DELETE FROM checkpoints WHERE name = ?');
  // One statement takes a free or expired lease, or renews our own; any other holder keeps it.
  const acquireLeaseStmt = db.prepare(
    `INSERT INTO leases (name, owner, expires_at) VALUES (@name, @owner, @expires)
     ON CONFLICT (name) DO UPDATE SET owner = excluded.owner, expires_at = excluded.expires_at
     WHERE leases.owner = excluded.owner OR leases.expires_at <= @now`,
  );
  const releaseLeaseStmt = db.prepare('DELETE FROM leases WHERE name = ? AND owner = ?');
  const statements = new Map<string, Database.Statement<unknown[], { doc?: string; n?: number }>>();
  const prepared = (sql: string) => {
    let stmt = statements.get(sql);
    if (!stmt) {
      stmt = db.prepare(sql);
      statements.set(sql, stmt);
    }
    return stmt;
  };

  type TableStatements = {
    get: Database.Statement<[string], { doc: string }>;
    upsert: Database.Statement<[string, string]>;
    delete: Database.Statement<[string]>;
    clear: Database.Statement<[]>;
  };
  const tables = new Map<string, TableStatements>();
  /** Creates the collection's table on first use (in this process; another may have made it). */
  const table = (collection: string): TableStatements => {
    let t = tables.get(collection);
    if (!t) {
      const name = tableName(collection);
      db.exec(`CREATE TABLE IF NOT EXISTS ${name} (id TEXT PRIMARY KEY, doc TEXT NOT NULL)`);
      t = {
        get: db.prepare(`SELECT doc FROM ${name} WHERE id = ?`),
        upsert: db.prepare(`INSERT INTO ${name} (id, doc) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET doc = excluded.doc`),
        delete: db.prepare(`DELETE FROM ${name} WHERE id = ?`),
        clear: db.prepare(`DELETE FROM ${name}`),
      };
      tables.set(collection, t);
    }
    return t;
  };

  /** A write with its document already serialized, ready to run. */
  type Row = { op: 'upsert'; t: TableStatements; id: string; json: string } | { op: 'delete'; t: TableStatements; id: string };
  const toRow = (op: WriteOp): Row =>
    op.op === 'upsert' ? { op: 'upsert', t: table(op.collection), id: op.doc.id, json: JSON.stringify(op.doc) } : { op: 'delete', t: table(op.collection), id: op.id };
  const runRow = (row: Row) => {
    if (row.op === 'upsert') row.t.upsert.run(row.id, row.json);
    else row.t.delete.run(row.id);
  };

  const commitTx = db.transaction((name: string, rows: Row[], expected: number | null, next: number) => {
    const actual = readCheckpointStmt.get(name)?.position ?? null;
    if (actual !== expected) throw new CheckpointConflictError(name, expected, actual);
    for (const row of rows) runRow(row);
    writeCheckpointStmt.run(name, next);
  });

  const resetTx = db.transaction((name: string, collections: string[]) => {
    for (const collection of collections) table(collection).clear.run();
    deleteCheckpointStmt.run(name);
  });

  return {
    async get<T extends Doc>(collection: string, id: string) {
      const row = table(collection).get.get(id);
      return row ? (JSON.parse(row.doc) as T) : null;
    },
    async find<T extends Doc>(collection: string, query: Query = {}) {
      table(collection);
      const { sql, params } = selectSql(collection, query);
      return prepared(sql).all(...params).map((r) => JSON.parse(r.doc!) as T);
    },
    stream<T extends Doc>(collection: string, query: Query = {}, streamOptions: { batchSize?: number } = {}): AsyncIterable<T[]> {
      const file = options.file;
      const size = Math.max(1, streamOptions.batchSize ?? STREAM_BATCH);
      return {
        async *[Symbol.asyncIterator]() {
          table(collection);
          const { sql, params } = selectSql(collection, query);
          // A memory database has no second connection to see it: read it whole (tests only).
          if (file === ':memory:') {
            yield* inBatches(prepared(sql).all(...params), size, (r) => JSON.parse(r.doc!) as T);
            return;
          }
          // A connection of its own: an open iterator keeps its connection busy, and the store's
          // must go on serving reads and writes meanwhile. Its read transaction is one snapshot.
          const reader = new Database(file, { readonly: true, fileMustExist: true });
          try {
            reader.pragma(`busy_timeout = ${busyTimeoutOf(options.busyTimeoutMs)}`);
            yield* inBatches(reader.prepare<unknown[], { doc: string }>(sql).iterate(...params), size, (row) => JSON.parse(row.doc) as T);
          } finally {
            reader.close();
          }
        },
      };
    },
    async count(collection, filter) {
      table(collection);
      const { where, params } = whereClause(filter);
      return prepared(`SELECT count(*) AS n FROM ${tableName(collection)} WHERE ${where}`).get(...params)?.n ?? 0;
    },
    async upsert(collection, doc) {
      runRow(toRow({ op: 'upsert', collection, doc }));
    },
    async delete(collection, id) {
      runRow(toRow({ op: 'delete', collection, id }));
    },
    async ensureIndex(collection, fields) {
      table(collection);
      db.exec(`CREATE INDEX IF NOT EXISTS ${indexName(collection, fields)} ON ${tableName(collection)} (${fields.map(jsonPath).join(', ')})`);
    },
    async dropIndexesExcept(collection, declared) {
      const keep = new Set(declared.map((fields) => indexName(collection, fields)));
      const made = db.prepare<[string], { name: string }>(`SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name LIKE 'idx\\_%' ESCAPE '\\'`).all(tableName(collection));
      for (const { name } of made) if (!keep.has(name)) db.exec(`DROP INDEX IF EXISTS ${name}`);
    },
    async readCheckpoint(name) {
      return readCheckpointStmt.get(name)?.position ?? null;
    },
    async commit(name, ops, { expected, next }) {
      // Serialized before the transaction: the file's write lock, which the event log's appends
      // wait for, is held only for the writes themselves.
      commitTx.immediate(name, ops.map(toRow), expected, next);
    },
    async reset(name, collections) {
      resetTx.immediate(name, collections);
    },
    async acquireLease(name, owner, ttlMs, now) {
      return acquireLeaseStmt.run({ name, owner, expires: now + ttlMs, now }).changes === 1;
    },
    async releaseLease(name, owner) {
      releaseLeaseStmt.run(name, owner);
    },
    async close() {
      db.close();
    },
  };
}

/** The SELECT of a find: documents matching the filter, in the query's order (ties by id), paged. */
function selectSql(collection: string, query: Query): { sql: string; params: unknown[] } {
  const { where, params } = whereClause(query.filter);
  const order = [...(query.sort ?? []).map(([f, d]) => `${jsonPath(f)} ${d === -1 ? 'DESC' : 'ASC'}`), 'id ASC'];
  return {
    sql: `SELECT doc FROM ${tableName(collection)} WHERE ${where} ORDER BY ${order.join(', ')} LIMIT ? OFFSET ?`,
    params: [...params, query.limit ?? -1, query.skip ?? 0],
  };
}

/** Collection names come from our code, never from a request; they become a table name, so check. */
function tableName(collection: string): string {
  if (!/^[A-Za-z0-9_]+$/.test(collection)) throw new Error(`invalid collection name: ${collection}`);
  return `rm_${collection}`;
}

/** The name ensureIndex gives an index: how dropIndexesExcept tells its own from SQLite's (`sqlite_autoindex_…`). */
const indexName = (collection: string, fields: readonly string[]) => `idx_${[collection, ...fields].join('_').replace(/[^A-Za-z0-9_]/g, '_')}`;

/** `id` is the table's key column (a lookup by ids uses its index); other paths are read from the document. */
function jsonPath(field: string): string {
  return field === 'id' ? 'id' : `json_extract(doc, '$.${assertFieldPath(field)}')`;
}

function bindable(value: unknown): unknown {
  return typeof value === 'boolean' ? (value ? 1 : 0) : value;
}

function whereClause(filter: Filter = {}): { where: string; params: unknown[] } {
  const clauses = ['1'];
  const params: unknown[] = [];
  for (const [field, condition] of Object.entries(filter)) {
    const path = jsonPath(field);
    const [clause, values] = conditionSql(path, condition);
    clauses.push(clause);
    params.push(...values.map(bindable));
  }
  return { where: clauses.join(' AND '), params };
}

function conditionSql(path: string, condition: Condition): [string, unknown[]] {
  if (condition === null) return [`${path} IS NULL`, []];
  if (typeof condition !== 'object') return [`${path} = ?`, [condition]];
  if ('$in' in condition) {
    // IN never matches NULL: a null in the list means "or missing/null", as in MongoDB.
    const values = condition.$in.filter((v) => v !== null);
    const orNull = values.length < condition.$in.length ? [`${path} IS NULL`] : [];
    const inList = values.length > 0 ? [`${path} IN (${values.map(() => '?').join(', ')})`] : [];
    const clauses = [...inList, ...orNull];
    return [clauses.length === 0 ? '0' : `(${clauses.join(' OR ')})`, values];
  }
  if ('$nin' in condition) {
    // NOT IN never matches NULL either: a null or missing field is none of the values, unless null is one of them.
    const values = condition.$nin.filter((v) => v !== null);
    const nullListed = values.length < condition.$nin.length;
    const notIn = values.length > 0 ? `${path} NOT IN (${values.map(() => '?').join(', ')})` : '1';
    return [nullListed ? `(${path} IS NOT NULL AND ${notIn})` : `(${path} IS NULL OR ${notIn})`, values];
  }
  const bounds: Array<[keyof Range, string]> = [['$lt', '<'], ['$lte', '<='], ['$gt', '>'], ['$gte', '>=']];
  const given = bounds.filter(([op]) => condition[op] !== undefined);
  if (given.length === 0) return ['1', []];
  return [given.map(([, sql]) => `${path} ${sql} ?`).join(' AND '), given.map(([op]) => condition[op])];
}
