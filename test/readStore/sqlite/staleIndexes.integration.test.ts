import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { allProjections } from '../../../app/allProjections.ts';
import { catchUpProjections, startProjections } from '../../../platform/es/projectionRunner.ts';
import type { Projection } from '../../../platform/es/projection.ts';
import { WEBHOOK_DELIVERIES } from '../../../modules/webhooks/webhookProjection.ts';
import { openTempStores } from '../../helpers/sqliteStores.ts';

const quiet = { error: () => undefined, info: () => undefined };
const cleanup: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

/** The indexes of a read-model table as SQLite lists them (SQLite's own for the key left out). */
function indexesOf(file: string, collection: string): string[] {
  const db = new Database(file, { readonly: true });
  try {
    return db
      .prepare<[string], { name: string }>("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_autoindex_%' ORDER BY name")
      .all(`rm_${collection}`)
      .map((r) => r.name);
  } finally {
    db.close();
  }
}

const notes = (indexes: Projection['indexes']): Projection => ({ name: 'notes', collections: ['notes'], eventTypes: ['Noted'], indexes, apply: async () => undefined });

describe('read-model indexes follow what the projections declare', () => {
  it('an index an earlier version of a projection declared is dropped when the projections start', async () => {
    const { file, store, readStore } = openTempStores(cleanup, 'stale-indexes-');
    await startProjections(store, readStore, [notes([{ collection: 'notes', fields: ['author', 'created_at'] }])], quiet).then((r) => r.stop());
    expect(indexesOf(file, 'notes')).toEqual(['idx_notes_author_created_at']);

    await startProjections(store, readStore, [notes([{ collection: 'notes', fields: ['topic'] }])], quiet).then((r) => r.stop());
    expect(indexesOf(file, 'notes')).toEqual(['idx_notes_topic']);

    await startProjections(store, readStore, [notes(undefined)], quiet).then((r) => r.stop());
    expect(indexesOf(file, 'notes')).toEqual([]);
  });

  it('a data file from before the webhook due index took its position keeps only the declared one', async () => {
    const { file, store, readStore } = openTempStores(cleanup, 'stale-indexes-');
    // What that version made, beside which every delivery written paid for a second index.
    await readStore.ensureIndex(WEBHOOK_DELIVERIES, ['status', 'next_attempt_at']);
    // And an index made by hand (an operator's), which is not the store's to drop.
    const operator = new Database(file);
    operator.exec(`CREATE INDEX by_hand ON rm_${WEBHOOK_DELIVERIES} (json_extract(doc, '$.organization_id'))`);
    operator.close();

    await catchUpProjections(store, readStore, allProjections);
    expect(indexesOf(file, WEBHOOK_DELIVERIES)).toEqual([
      'by_hand',
      'idx_webhook_deliveries_endpoint_id_created_at',
      'idx_webhook_deliveries_endpoint_id_resource_status_position',
      'idx_webhook_deliveries_status_next_attempt_at_position_id',
    ]);
  });
});
