import { MongoClient } from 'mongodb';
import { GenericContainer, Wait } from 'testcontainers';

/** The production profile's servers for tests, one container each per test run. */

/** As docker-compose.yml runs it: KurrentDB, EventStoreDB's new name, on its LTS line. */
export const EVENTSTORE_IMAGE = 'docker.kurrent.io/kurrent-lts/kurrentdb:26.0.3';
export const MONGO_IMAGE = 'mongo:7.0';

export async function startEventStoreDb(): Promise<{ url: string; stop(): Promise<void> }> {
  const container = await new GenericContainer(EVENTSTORE_IMAGE)
    .withEnvironment({
      KURRENTDB_INSECURE: 'true',
      KURRENTDB_MEM_DB: 'true',
      KURRENTDB_CLUSTER_SIZE: '1',
      KURRENTDB_RUN_PROJECTIONS: 'None',
    })
    .withExposedPorts(2113)
    .withWaitStrategy(Wait.forHttp('/health/live', 2113).forStatusCodeMatching((s) => s >= 200 && s < 300))
    .withStartupTimeout(120_000)
    .start();
  return {
    url: `esdb://${container.getHost()}:${container.getMappedPort(2113)}?tls=false`,
    stop: async () => {
      await container.stop();
    },
  };
}

/**
 * A single-node replica set (transactions need one). The member is announced as localhost:27017
 * inside the container, so clients connect with directConnection=true instead of discovering it.
 */
export async function startMongoReplicaSet(): Promise<{ url: string; stop(): Promise<void> }> {
  const container = await new GenericContainer(MONGO_IMAGE)
    .withCommand(['--replSet', 'rs0', '--bind_ip_all'])
    .withExposedPorts(27017)
    .withWaitStrategy(Wait.forLogMessage(/Waiting for connections/))
    .withStartupTimeout(120_000)
    .start();
  const initiated = await container.exec([
    'mongosh',
    '--quiet',
    '--eval',
    "rs.initiate({ _id: 'rs0', members: [{ _id: 0, host: 'localhost:27017' }] })",
  ]);
  if (initiated.exitCode !== 0) throw new Error(`rs.initiate failed: ${initiated.output}`);
  const url = `mongodb://${container.getHost()}:${container.getMappedPort(27017)}/?directConnection=true`;
  await waitForPrimary(url);
  return {
    url,
    stop: async () => {
      await container.stop();
    },
  };
}

async function waitForPrimary(url: string): Promise<void> {
  const client = new MongoClient(url, { serverSelectionTimeoutMS: 2000 });
  try {
    for (let i = 0; i < 60; i++) {
      const hello = await client.db('admin').command({ hello: 1 }).catch(() => null);
      if (hello?.isWritablePrimary) return;
      await new Promise((r) => setTimeout(r, 500));
    }
    throw new Error('MongoDB replica set has no primary after 30 s');
  } finally {
    await client.close();
  }
}
