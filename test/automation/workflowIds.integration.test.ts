import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { nextWorkflowId } from '../../modules/automation/workflowIds.ts';
import type { EventMetadata } from '../../platform/eventStore/eventStore.ts';
import { openSqliteEventStore } from '../../platform/eventStore/sqlite/sqliteEventStore.ts';
import { newEvent } from '../contracts/eventStoreContract.ts';

const dir = mkdtempSync(join(tmpdir(), 'commerce-wfids-'));
const metadata: EventMetadata = { correlation_id: 't', actor: { type: 'system', name: 'test' }, organization_id: null, occurred_at: 0 };
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('workflow ids', () => {
  it('are unique across two connections to one log, increasing within each, and start above every position written before', async () => {
    const file = join(dir, 'commerce.db');
    const a = openSqliteEventStore({ file });
    const b = openSqliteEventStore({ file });
    try {
      // A log that held workflows before: their ids were positions up to its head.
      for (let i = 0; i < 5; i++) await a.append(`old-${i}`, [newEvent()], 'no_stream');
      const head = (await a.headPosition())!;
      const fromA: number[] = [];
      const fromB: number[] = [];
      await Promise.all(
        Array.from({ length: 500 }, async (_, i) => {
          if (i % 2 === 0) fromA.push(await nextWorkflowId(a, metadata));
          else fromB.push(await nextWorkflowId(b, metadata));
        }),
      );
      const all = [...fromA, ...fromB];
      expect(new Set(all).size).toBe(500);
      expect(Math.min(...all)).toBeGreaterThan(head);
      for (const ids of [fromA, fromB]) expect(ids).toEqual([...ids].sort((x, y) => x - y));
      // Blocks of ids, not one event per id.
      expect((await a.readStream('counter-automation_workflow_ids')).length).toBeLessThan(20);
    } finally {
      await a.close();
      await b.close();
    }
  });
});
