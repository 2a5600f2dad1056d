import { EventStoreDBClient } from '@eventstore/db-client';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventStoreAt } from '../../app/compose.ts';
import { ConfigError, loadConfig } from '../../platform/runtime/config.ts';
import { toEsdbConnectionString } from '../../platform/runtime/eventStoreUrl.ts';

const MONGODB_URL = 'mongodb://mongo:27017/?replicaSet=rs0';

describe('EventStoreDB / KurrentDB connection strings', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('the client in use reads esdb:// and esdb+discover:// only (its own parser), so a kurrentdb:// string is rewritten for it', async () => {
    expect(() => EventStoreDBClient.connectionString('kurrentdb://localhost:2113?tls=false')).toThrow(/esdb:\/\/ or esdb\+discover:\/\//);
    expect(toEsdbConnectionString('kurrentdb://admin:changeit@localhost:2113?tls=false')).toBe('esdb://admin:changeit@localhost:2113?tls=false');
    expect(toEsdbConnectionString('KurrentDB+discover://a:2113,b:2113')).toBe('esdb+discover://a:2113,b:2113');
    expect(toEsdbConnectionString('kdb://localhost:2113')).toBe('esdb://localhost:2113');
    expect(toEsdbConnectionString('esdb://localhost:2113')).toBe('esdb://localhost:2113');
    // The client takes every rewritten form (parsing only: no connection is made before a call).
    for (const url of ['kurrentdb://localhost:2113?tls=false', 'kurrentdb+discover://a:2113,b:2113', 'kdb://localhost:2113?tls=false']) {
      const client = EventStoreDBClient.connectionString(toEsdbConnectionString(url));
      await client.dispose();
    }
  });

  it('EVENTSTORE_URL: esdb://, kurrentdb:// and kdb:// (with or without +discover) are taken; anything else stops the start', () => {
    expect(loadConfig({ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false', MONGODB_URL }).EVENTSTORE_URL).toBe('esdb://eventstore:2113?tls=false');
    expect(loadConfig({ EVENTSTORE_URL: 'esdb+discover://cluster.example:2113', MONGODB_URL }).EVENTSTORE_URL).toBe('esdb+discover://cluster.example:2113');
    expect(loadConfig({ EVENTSTORE_URL: 'kurrentdb://localhost:2113?tls=false', MONGODB_URL }).EVENTSTORE_URL).toBe('kurrentdb://localhost:2113?tls=false');
    expect(loadConfig({ EVENTSTORE_URL: 'kdb+discover://cluster.example:2113', MONGODB_URL }).EVENTSTORE_URL).toBe('kdb+discover://cluster.example:2113');
    const refused = () => loadConfig({ EVENTSTORE_URL: 'http://localhost:2113', MONGODB_URL });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow(/EVENTSTORE_URL: expected an esdb:\/\/, esdb\+discover:\/\/, kurrentdb:\/\//);
  });

  it('`events copy --to kurrentdb://…` opens an event store server, never a directory of that name', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'kurrent-url-'));
    dirs.push(cwd);
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      const store = await openEventStoreAt('kurrentdb://localhost:2113?tls=false');
      // The EventStoreDB adapter: it appends without a transaction across streams, unlike SQLite.
      expect(store.atomicAppendMany).toBe(false);
      await store.close();
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  });
});
