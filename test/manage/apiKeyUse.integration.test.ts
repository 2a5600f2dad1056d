import { rmSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { apiKeyStream } from '../../modules/identity/domain/apiKey.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { runCli } from '../helpers/serverProcess.ts';
import { manualClock, startTestServer } from '../helpers/testServer.ts';

type Key = { id: string; token: string; last_used_at: number | null };

describe('API keys record their last use, at most once per key every five minutes', () => {
  it('shows last_used_at in the key list and the CLI, without an event per request', async () => {
    const clock = manualClock();
    const server = await startTestServer({ clock });
    const uses = async (id: string) =>
      (await server.services.store.readStream(apiKeyStream(id))).filter((e) => e.type === 'ApiKeyUsed').map((e) => (e.data as { used_at: number }).used_at);
    try {
      const owner = await signedInPerson(server);
      const key = (await owner.client.json<Key>('POST', '/manage/api/api-keys', { name: 'CI' })).body;
      expect(key.last_used_at).toBeNull();
      await server.settle();
      const listed = async () => (await owner.client.json<{ data: Key[] }>('GET', '/manage/api/api-keys')).body.data.find((k) => k.id === key.id)!;
      expect((await listed()).last_used_at).toBeNull();

      const t0 = Math.floor(clock() / 1000);
      const statuses = await Promise.all(Array.from({ length: 5 }, () => server.fetch('/api/users/me', { token: key.token }).then((r) => r.status)));
      expect(statuses).toEqual([200, 200, 200, 200, 200]);
      await expect.poll(() => uses(key.id), { timeout: 10_000 }).toEqual([t0]);
      await server.settle();
      expect((await listed()).last_used_at).toBe(t0);

      // A minute later: still within five minutes of the recorded use.
      clock.advance(60_000);
      expect((await server.fetch('/api/users/me', { token: key.token })).status).toBe(200);
      // Six minutes after the first: recorded again. Had the one-minute request recorded a use,
      // this one (five minutes after it) would make three.
      clock.advance(300_000);
      expect((await server.fetch('/api/users/me', { token: key.token })).status).toBe(200);
      await expect.poll(() => uses(key.id), { timeout: 10_000 }).toEqual([t0, t0 + 360]);
      await server.settle();
      expect((await listed()).last_used_at).toBe(t0 + 360);
    } finally {
      await server.close();
    }
    try {
      const run = await runCli(['api-key', 'list', '--json'], { DATA_DIR: server.dataDir });
      expect(run.code, run.stderr).toBe(0);
      const rows = JSON.parse(run.stdout) as Array<{ name: string; last_used_at: number | null }>;
      expect(rows.find((r) => r.name === 'CI')!.last_used_at).toEqual(expect.any(Number));
    } finally {
      rmSync(server.dataDir, { recursive: true, force: true });
    }
  }, 90_000);
});
