import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';

/**
 * vitest global setup. The embedded profile needs nothing. The production profile's suites need
 * an EventStoreDB and a MongoDB replica set: taken from EVENTSTORE_URL / MONGODB_URL when set,
 * otherwise started once per run with testcontainers when a Docker engine answers; otherwise those
 * suites skip, and this says so in one line.
 */
declare module 'vitest' {
  export interface ProvidedContext {
    eventstoreUrl: string | null;
    mongodbUrl: string | null;
    /** The compiled CLI (what `npm start` and the Docker image run), built once per run. */
    cliPath: string;
  }
}

type Stop = () => Promise<void>;

export default async function setup(project: TestProject): Promise<Stop> {
  let eventstoreUrl = process.env.EVENTSTORE_URL || null;
  let mongodbUrl = process.env.MONGODB_URL || null;
  const stops: Stop[] = [];

  if (!eventstoreUrl || !mongodbUrl) {
    if (await dockerEngineAnswers()) {
      const containers = await import('./helpers/productionContainers.ts');
      try {
        if (!eventstoreUrl) {
          const started = await containers.startEventStoreDb();
          eventstoreUrl = started.url;
          stops.push(started.stop);
        }
        if (!mongodbUrl) {
          const started = await containers.startMongoReplicaSet();
          mongodbUrl = started.url;
          stops.push(started.stop);
        }
      } catch (error) {
        // An engine that cannot pull or start the images (offline, say): skip, and say why.
        console.log(
          `production-profile tests skipped: a Docker engine answers but the containers did not start (${error instanceof Error ? error.message.split('\n')[0] : String(error)})`,
        );
        await Promise.all(stops.splice(0).map((stop) => stop().catch(() => undefined)));
        eventstoreUrl = process.env.EVENTSTORE_URL || null;
        mongodbUrl = process.env.MONGODB_URL || null;
      }
    } else if (!eventstoreUrl && !mongodbUrl) {
      console.log('production-profile tests skipped: no Docker engine and no EVENTSTORE_URL/MONGODB_URL');
    } else {
      console.log(
        `production-profile tests skipped for ${eventstoreUrl ? 'MongoDB' : 'EventStoreDB'}: no Docker engine and no ${eventstoreUrl ? 'MONGODB_URL' : 'EVENTSTORE_URL'}`,
      );
    }
  }

  project.provide('eventstoreUrl', eventstoreUrl);
  project.provide('mongodbUrl', mongodbUrl);
  project.provide('cliPath', buildCli());
  return async () => {
    await Promise.all(stops.map((stop) => stop()));
  };
}

/**
 * The CLI tests run `commerce` as it ships, compiled (scripts/build.ts), not through tsx: each of
 * their many spawns then starts in a fraction of the time. Built inside the repository (under the
 * ignored test-results/) so that the compiled chunks find node_modules as dist/ does.
 */
function buildCli(): string {
  const root = fileURLToPath(new URL('..', import.meta.url));
  const dist = join(root, 'test-results', 'compiled-cli', 'dist');
  execFileSync(process.execPath, ['bin/run-ts.js', 'scripts/build.ts', '--outdir', dist], { cwd: root, stdio: 'ignore', timeout: 120_000 });
  return join(dist, 'commerce.js');
}

/**
 * A quick `GET /_ping` to the engine (the docker CLI alone is not an engine). Bounded to about a
 * second, so a machine without Docker loses no time.
 */
async function dockerEngineAnswers(): Promise<boolean> {
  const host = process.env.DOCKER_HOST;
  let target: { socketPath: string } | { host: string; port: number } | null = null;
  if (host?.startsWith('unix://')) target = { socketPath: host.slice('unix://'.length) };
  else if (host?.startsWith('tcp://')) {
    const url = new URL(host.replace(/^tcp:/, 'http:'));
    target = { host: url.hostname, port: Number(url.port || 2375) };
  } else {
    const socket = ['/var/run/docker.sock', join(homedir(), '.docker/run/docker.sock')].find((p) => existsSync(p));
    if (socket) target = { socketPath: socket };
  }
  if (!target) return false;
  const ping = target;
  return new Promise((resolve) => {
    const req = request({ ...ping, path: '/_ping', method: 'GET', timeout: 1500 }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    });
    req.on('timeout', () => req.destroy());
    req.on('error', () => resolve(false));
    req.end();
  });
}
