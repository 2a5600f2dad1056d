import { EventStoreDBClient } from '@eventstore/db-client';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openEventStoreAt } from '../../app/compose.ts';
import { ConfigError, loadConfig } from '../../app/config.ts';

const MONGODB_URL = 'mongodb://mongo:27017/?replicaSet=rs0';

describe('EventStoreDB / KurrentDB connection strings', () => {
  const dirs: string[] = [];
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('the client in use reads esdb:// and esdb+discover:// only (its own parser): kurrentdb:// is not one it takes', async () => {
    const client = EventStoreDBClient.connectionString('esdb://localhost:2113?tls=false');
    await client.dispose();
    expect(() => EventStoreDBClient.connectionString('kurrentdb://localhost:2113?tls=false')).toThrow(/esdb:\/\/ or esdb\+discover:\/\//);
  });

  it('EVENTSTORE_URL: esdb:// and esdb+discover:// are taken; kurrentdb:// and kdb:// stop the start naming the fix', () => {
    expect(loadConfig({ EVENTSTORE_URL: 'esdb://eventstore:2113?tls=false', MONGODB_URL }).EVENTSTORE_URL).toBe('esdb://eventstore:2113?tls=false');
    expect(loadConfig({ EVENTSTORE_URL: 'esdb+discover://cluster.example:2113', MONGODB_URL }).EVENTSTORE_URL).toBe('esdb+discover://cluster.example:2113');
    const refused = () => loadConfig({ EVENTSTORE_URL: 'kurrentdb://localhost:2113?tls=false', MONGODB_URL });
    expect(refused).toThrow(ConfigError);
    expect(refused).toThrow('invalid configuration: EVENTSTORE_URL: the EventStoreDB client in use (@eventstore/db-client 6.2.1) reads esdb:// and esdb+discover:// only: write esdb:// in place of kurrentdb://');
    expect(() => loadConfig({ EVENTSTORE_URL: 'kdb+discover://cluster.example:2113', MONGODB_URL })).toThrow(/write esdb\+discover:\/\/ in place of kdb\+discover:\/\//);
    expect(() => loadConfig({ EVENTSTORE_URL: 'http://localhost:2113', MONGODB_URL })).toThrow(/EVENTSTORE_URL: expected an esdb:\/\/ or esdb\+discover:\/\/ connection string/);
  });

  it('`events copy --to kurrentdb://…` is refused, not taken for a directory of that name', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'kurrent-url-'));
    dirs.push(cwd);
    const previous = process.cwd();
    process.chdir(cwd);
    try {
      await expect(openEventStoreAt('kurrentdb://localhost:2113?tls=false')).rejects.toThrow(/write esdb:\/\/ in place of kurrentdb:\/\//);
      expect(readdirSync(cwd)).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  });
});
