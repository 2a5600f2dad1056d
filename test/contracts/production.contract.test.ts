import { randomUUID } from 'node:crypto';
import { MongoClient } from 'mongodb';
import { describe, inject } from 'vitest';
import { openEsdbEventStore } from '../../platform/eventStore/esdb/esdbEventStore.ts';
import { openMongoReadStore } from '../../platform/readStore/mongodb/mongoReadStore.ts';
import { eventStoreContract } from './eventStoreContract.ts';
import { readStoreContract } from './readStoreContract.ts';
import { personalDataVaultContract } from './personalDataVaultContract.ts';
import { openMongoPersonalDataVault } from '../../platform/privacy/mongodb/mongoVault.ts';

// Servers come from test/globalSetup.ts: testcontainers where a Docker engine answers, or
// EVENTSTORE_URL / MONGODB_URL. Without either, globalSetup has said so once and these skip.
const eventstoreUrl = inject('eventstoreUrl');
const mongodbUrl = inject('mongodbUrl');

describe.skipIf(!eventstoreUrl)('production profile: EventStoreDB', () => {
  // One server for the run: every test of the contract writes under its own stream prefix.
  eventStoreContract('EventStoreDB', async () => ({
    connect: async () => openEsdbEventStore(eventstoreUrl!),
    dispose: async () => undefined,
  }));
});

describe.skipIf(!mongodbUrl)('production profile: MongoDB', () => {
  // One database per test, dropped afterwards.
  const fixture = (transactions: 'auto' | 'never') => async () => {
    const dbName = `contract_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    return {
      connect: () => openMongoReadStore(mongodbUrl!, dbName, { transactions }),
      dispose: async () => {
        const client = new MongoClient(mongodbUrl!);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  };
  readStoreContract('MongoDB (transactions)', fixture('auto'));
  // What a standalone server gets: position-guarded writes, then the checkpoint.
  readStoreContract('MongoDB (position-guarded, no transactions)', fixture('never'));
  personalDataVaultContract('MongoDB', async () => {
    const dbName = `vault_${randomUUID().replace(/-/g, '').slice(0, 16)}`;
    return {
      connect: () => openMongoPersonalDataVault(mongodbUrl!, dbName),
      dispose: async () => {
        const client = new MongoClient(mongodbUrl!);
        try {
          await client.db(dbName).dropDatabase();
        } finally {
          await client.close();
        }
      },
    };
  });
});
