import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIdentity, seedOfferAndCatchUrl, startServerProcess, tempDataDir, withServices, type ServerProcess } from '../helpers/serverProcess.ts';

const ENV = { LOG_LEVEL: 'warn', CHECKOUT_RATE_LIMIT: '1000000' };
/** Keys sent per round; a round is killed once KILL_AFTER of them are acknowledged. */
const ROUND_KEYS = 120;
const KILL_AFTER = 60;

/**
 * SIGKILL under keyed session creations, then a retry of every key with the same body on the
 * restarted service: claims the dead process left neither completed nor released must settle
 * within seconds (a replay of the session they created, or a creation), one session per key.
 */
describe('checkout: idempotency keys after a SIGKILL', () => {
  const dataDir = tempDataDir('commerce-checkout-crash-');
  let offerSlug: string;
  let organizationId: string;
  let proc: ServerProcess | undefined;

  beforeAll(async () => {
    ({ organizationId } = await seedIdentity(dataDir, 'Killed checkout'));
    ({ offerSlug } = await seedOfferAndCatchUrl(dataDir, organizationId, 'Killed checkout'));
  }, 60_000);
  afterAll(async () => {
    if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
    await proc?.exited;
    rmSync(dataDir, { recursive: true, force: true });
  });

  const create = (url: string, n: number) =>
    fetch(`${url}/api/checkout/sessions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'idempotency-key': `crash-key-${n}` },
      body: JSON.stringify({ offer: offerSlug, metadata: { n: String(n) } }),
    });

  /** Keys whose last event is a claim: neither completed nor released by the process that died. */
  const danglingClaims = () =>
    withServices(dataDir, async (services) => {
      const last = new Map<string, string>();
      for (const e of await services.store.readAll({ after: null, limit: 1_000_000 })) if (e.stream.startsWith('idempotency-')) last.set(e.stream, e.type);
      return [...last.values()].filter((type) => type === 'IdempotencyKeyClaimed').length;
    });

  it('every key answers 201 after the restart, the acknowledged ones with their session, and no key made two sessions', async () => {
    const acknowledged = new Map<number, string>();
    let next = 0;
    let dangling = 0;
    // Killed while requests are in flight; again (new keys) in a round that left no claim open,
    // which a busy machine makes likelier: the kill can land while every request waits to be read.
    for (let round = 0; round < 10 && dangling === 0; round++) {
      proc = await startServerProcess({ dataDir, env: ENV });
      const running = proc;
      const stopAt = next + ROUND_KEYS;
      const ackedBefore = acknowledged.size;
      const load = async () => {
        while (next < stopAt) {
          const n = next++;
          try {
            const response = await create(running.url, n);
            if (response.status === 201) acknowledged.set(n, ((await response.json()) as { session: { id: string } }).session.id);
          } catch {
            return; // the process is gone
          }
          if (acknowledged.size - ackedBefore >= KILL_AFTER && running.child.exitCode === null) running.child.kill('SIGKILL');
        }
      };
      await Promise.all(Array.from({ length: 24 }, load));
      if (running.child.exitCode === null && running.child.signalCode === null) running.child.kill('SIGKILL');
      expect((await running.exited).signal).toBe('SIGKILL');
      dangling = await danglingClaims();
    }
    expect(dangling, 'claims the killed process left open').toBeGreaterThan(0);
    const keys = next;

    proc = await startServerProcess({ dataDir, env: ENV });
    const url = proc.url;
    const retried = new Map<number, { status: number; id: string | undefined; code: string | undefined }>();
    let n = 0;
    const retry = async () => {
      while (n < keys) {
        const key = n++;
        const response = await create(url, key);
        const body = (await response.json()) as { session?: { id: string }; code?: string };
        retried.set(key, { status: response.status, id: body.session?.id, code: body.code });
      }
    };
    await Promise.all(Array.from({ length: 24 }, retry));
    await proc.stop();

    const refused = [...retried].filter(([, r]) => r.status !== 201);
    expect(refused, 'retries that did not answer 201').toEqual([]);
    for (const [key, id] of acknowledged) expect(retried.get(key)!.id, `key ${key}`).toBe(id);
    const sessions = await withServices(dataDir, async (services) =>
      (await services.store.readAll({ after: null, limit: 1_000_000 })).filter((e) => e.type === 'CheckoutSessionCreated'),
    );
    const ids = new Set(sessions.map((e) => (e.data as { id: string }).id));
    expect(sessions).toHaveLength(keys);
    expect(new Set([...retried.values()].map((r) => r.id))).toEqual(ids);
  }, 300_000);
});
