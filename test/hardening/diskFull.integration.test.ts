import { execFileSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, unavailableReason } from '../../platform/sqlite/openDatabase.ts';
import { eventually } from '../helpers/receiver.ts';
import { seedIdentity, seedOfferAndCatchUrl, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

/**
 * The disk fills up under a running server. Simulated with a soft file-size limit on the server
 * process (prlimit, from util-linux): a write past it fails as a write to a full disk does, and
 * the limit can be lifted while the process runs, as an operator frees space.
 */
const LIMIT_BYTES = 4_000_000;
const PAD = 'x'.repeat(400_000);

describe('disk full: a running server answers 503, writes nothing half, and recovers once there is room', () => {
  const dataDir = tempDataDir('commerce-diskfull-');
  let proc: ServerProcess;
  let catchPath: string;
  let offerSlug: string;
  let token: string;

  beforeAll(async () => {
    let organizationId: string;
    ({ organizationId, token } = await seedIdentity(dataDir, 'Full Disk Org'));
    ({ catchPath, offerSlug } = await seedOfferAndCatchUrl(dataDir, organizationId, 'Full Disk'));
    proc = await startServerProcess({
      dataDir,
      env: { LOG_LEVEL: 'warn', CATCH_RATE_LIMIT_MAX: '1000000', CHECKOUT_RATE_LIMIT: '1000000' },
      launcher: ['prlimit', `--fsize=${LIMIT_BYTES}:`],
    });
  }, 60_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const sendWebhook = (n: number) =>
    fetch(`${proc.url}${catchPath}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ email: `b${n}@example.com`, pad: PAD }) });
  const createSession = () =>
    fetch(`${proc.url}/api/checkout/sessions`, { method: 'POST', headers: { 'content-type': 'application/json', 'idempotency-key': 'full-disk-1' }, body: JSON.stringify({ offer: offerSlug }) });

  it('answers 503 with Retry-After while writes fail, keeps reading, and takes the same requests once space is freed', async () => {
    const accepted: number[] = [];
    let refused: Response | null = null;
    for (let n = 0; n < 60 && !refused; n++) {
      const response = await sendWebhook(n);
      if (response.status === 200) {
        accepted.push(((await response.json()) as { workflow_id: number }).workflow_id);
      } else {
        refused = response;
      }
    }
    expect(refused, 'the file-size limit was never reached').not.toBeNull();
    expect(refused!.status).toBe(503);
    expect(refused!.headers.get('retry-after')).toBe('1');
    expect(await refused!.json()).toEqual({ message: 'The service is busy. Try again shortly.', code: 'service_unavailable' });
    // A small write may still fit in what the limit leaves; either way, never a 500.
    const session = await createSession();
    expect([201, 503]).toContain(session.status);
    await session.arrayBuffer();
    // Reads need no room on disk.
    const offer = await fetch(`${proc.url}/api/checkout?offer=${offerSlug}`);
    expect(offer.status).toBe(200);
    await offer.arrayBuffer();
    // The operator learns why, at error level.
    expect(proc.output()).toMatch(/"level":50,[^\n]*event log: (the disk is full|disk I\/O error)[^\n]*"msg":"store unavailable"/);

    execFileSync('prlimit', [`--pid=${proc.child.pid}`, '--fsize=unlimited:unlimited']);

    for (let n = 100; n < 105; n++) {
      const response = await sendWebhook(n);
      expect(response.status).toBe(200);
      accepted.push(((await response.json()) as { workflow_id: number }).workflow_id);
    }
    expect((await createSession()).status).toBe(201);
    expect(proc.child.exitCode).toBeNull();

    // Every accepted webhook's workflow runs to its end; a refused one left no trace.
    const db = new Database(join(dataDir, 'commerce.db'), { readonly: true });
    try {
      await eventually(async () => {
        const done = await Promise.all(accepted.map(async (id) => {
          const response = await fetch(`${proc.url}/api/automation/workflows/${id}`, { headers: { authorization: `Bearer ${token}` } });
          return response.status === 200 && ((await response.json()) as { status: string }).status === 'completed';
        }));
        return done.every(Boolean);
      }, 20_000);
      const received = db.prepare("SELECT count(*) AS n FROM events WHERE type = 'WebhookReceived'").get() as { n: number };
      const started = db.prepare("SELECT count(*) AS n FROM events WHERE type = 'WebhookReceived' AND data ->> '$.outcome.status' = 'started'").get() as { n: number };
      expect(received.n).toBe(accepted.length);
      expect(started.n).toBe(accepted.length);
    } finally {
      db.close();
    }
  }, 120_000);
});

function errorOf(work: () => unknown): unknown {
  try {
    work();
  } catch (error) {
    return error;
  }
  return null;
}

describe('unavailableReason', () => {
  it("names SQLite's own full-disk error, and leaves the errors of what was written alone", () => {
    const dir = tempDataDir('commerce-fullfile-');
    const db = openDatabase(join(dir, 'full.db'), { synchronous: 'FULL' });
    try {
      db.exec('CREATE TABLE t (id INTEGER PRIMARY KEY, body TEXT NOT NULL)');
      // The file may grow no further: what SQLite reports for a full disk, without filling one.
      db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
      const full = errorOf(() => db.prepare('INSERT INTO t (body) VALUES (?)').run('x'.repeat(100_000)));
      expect((full as { code?: string }).code).toBe('SQLITE_FULL');
      expect(unavailableReason(full)).toBe('the disk is full');
      const constraint = errorOf(() => db.prepare('INSERT INTO t (id, body) VALUES (1, NULL)').run());
      expect((constraint as { code?: string }).code).toBe('SQLITE_CONSTRAINT_NOTNULL');
      expect(unavailableReason(constraint)).toBeNull();
    } finally {
      db.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
