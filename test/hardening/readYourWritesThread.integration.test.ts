import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedIdentity, seedOfferAndCatchUrl, startServerProcess, tempDataDir, type ServerProcess } from '../helpers/serverProcess.ts';

const ROUNDS = 15;

/**
 * The shipped topology: `commerce serve` with its projections on the subscriber thread, which
 * applies what the server appended at most every 100 ms under load. Each round reads right after
 * its own write, as a browser or an integration does; none may find the write missing.
 */
describe('read-your-writes in `serve` with the subscriber thread', () => {
  const dataDir = tempDataDir('commerce-ryw-');
  let proc: ServerProcess;
  let token: string;
  let offerSlug: string;

  beforeAll(async () => {
    let organizationId: string;
    ({ organizationId, token } = await seedIdentity(dataDir, 'Read Your Writes'));
    ({ offerSlug } = await seedOfferAndCatchUrl(dataDir, organizationId, 'Ryw'));
    proc = await startServerProcess({ dataDir, env: { SUBSCRIBER_THREAD: 'true' } });
  }, 60_000);
  afterAll(async () => {
    await proc?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
    fetch(`${proc.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json', ...headers }, body: JSON.stringify(body) });
  const get = (path: string, headers: Record<string, string> = {}) => fetch(`${proc.url}${path}`, { headers: { accept: 'application/json', ...headers } });

  it('answers a public session GET right after its 201, every time', async () => {
    const misses: number[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const created = await post('/api/checkout/sessions', { offer: offerSlug });
      expect(created.status).toBe(201);
      const { session } = (await created.json()) as { session: { id: string } };
      const read = await get(`/api/checkout/sessions/${session.id}`);
      if (read.status !== 200) misses.push(read.status);
    }
    expect(misses).toEqual([]);
  }, 60_000);

  it("shows a key's new endpoint in its own list and by id right after the 201, every time", async () => {
    const auth = { authorization: `Bearer ${token}` };
    const misses: string[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      const made = await post('/api/webhook-endpoints', { url: `https://hooks.example.com/ryw/${i}`, event_types: ['checkout.session.completed'] }, auth);
      expect(made.status).toBe(201);
      expect(made.headers.get('commerce-position')).toMatch(/^\d+$/);
      const { id } = (await made.json()) as { id: string };
      const list = (await (await get('/api/webhook-endpoints', auth)).json()) as { data: Array<{ id: string }> };
      if (!list.data.some((e) => e.id === id)) misses.push(`list ${i}`);
      const one = await get(`/api/webhook-endpoints/${id}`, auth);
      if (one.status !== 200) misses.push(`by id ${i}: ${one.status}`);
    }
    expect(misses).toEqual([]);
  }, 60_000);
});
