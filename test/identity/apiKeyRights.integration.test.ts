import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { roleForRoute } from '../../modules/identity/domain/bearerAccess.ts';
import { signedInPerson } from '../helpers/manageClient.ts';
import { enumerateRoutes, fillPath } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Key = { id: string; token: string; user_id: string; user_email: string | null; revoked_at: number | null };

/**
 * As GitHub does for organization tokens: an API key acts with its creator's current rights. A
 * demotion narrows it to what a member may do from the next request; a removal refuses it at once
 * and a subscriber records its revocation (`ApiKeyRevoked`, reason `member_removed`).
 */
describe('API keys act with their creator’s current rights', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  const endpoint = { url: 'https://hooks.example/in', event_types: ['checkout.session.completed'] };

  it('narrows a demoted owner’s key to a member’s routes, refuses it once they are removed, and revokes it', async () => {
    const owner = await signedInPerson(server);
    const creator = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const created = await creator.client.json<Key>('POST', '/manage/api/api-keys', { name: 'Their server' });
    expect(created.status).toBe(201);
    const token = created.body.token;
    await server.settle();
    expect((await server.fetch('/api/checkout/sessions', { token })).status).toBe(200);
    const made = await server.fetch('/api/webhook-endpoints', { token, method: 'POST', body: JSON.stringify(endpoint), headers: { 'content-type': 'application/json' } });
    expect(made.status).toBe(201);

    expect((await owner.client.json('PATCH', `/manage/api/members/${creator.userId}`, { role: 'member' })).status).toBe(200);
    // Demoted: the next request, with no wait for any read model, is a member's.
    const refused = await server.fetch('/api/webhook-endpoints', { token, method: 'POST', body: JSON.stringify(endpoint), headers: { 'content-type': 'application/json' } });
    expect(refused.status).toBe(403);
    expect(await refused.json()).toEqual({ message: 'This action is unauthorized.', code: 'unauthorized' });
    expect((await server.fetch('/api/webhook-endpoints', { token })).status).toBe(403);
    expect((await server.fetch('/api/checkout/sessions', { token })).status).toBe(200);
    expect((await server.fetch('/api/users/me', { token })).status).toBe(200);

    await server.settle();
    expect((await owner.client.request('DELETE', `/manage/api/members/${creator.userId}`)).status).toBe(204);
    // Removed: refused at once, whether or not the revocation is recorded yet.
    const gone = await server.fetch('/api/checkout/sessions', { token });
    expect(gone.status).toBe(401);
    expect(await gone.json()).toEqual({ message: 'Unauthenticated.', code: 'unauthenticated' });

    // The subscriber records why.
    const revocations = async () => (await server.services.store.readStream(`api_key-${created.body.id}`)).filter((e) => e.type === 'ApiKeyRevoked');
    await expect.poll(async () => (await revocations()).map((e) => e.data), { timeout: 10_000 }).toEqual([{ revoked_at: expect.any(Number), reason: 'member_removed' }]);
    expect((await revocations())[0]!.metadata.actor).toEqual({ type: 'system', name: 'api-key-revocation' });
    expect((await server.fetch('/api/checkout/sessions', { token })).status).toBe(401);
  });

  it('on every bearer route: a demoted owner’s key answers as an owner’s on members’ routes and 403 on owners’, a removed one’s 401', async () => {
    const owner = await signedInPerson(server);
    const demoted = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const removed = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const keyOf = async (person: typeof owner) => (await person.client.json<Key>('POST', '/manage/api/api-keys', { name: 'k' })).body.token;
    const [ownerKey, demotedKey, removedKey] = [await keyOf(owner), await keyOf(demoted), await keyOf(removed)];
    await server.settle();
    expect((await owner.client.json('PATCH', `/manage/api/members/${demoted.userId}`, { role: 'member' })).status).toBe(200);
    expect((await owner.client.request('DELETE', `/manage/api/members/${removed.userId}`)).status).toBe(204);
    const routes = enumerateRoutes(server.app).filter((r) => r.protected && r.method !== 'HEAD');
    expect(routes.length).toBeGreaterThan(15);
    const call = (method: string, url: string, token: string) =>
      server.fetch(fillPath(url, () => 'x'), { method, token, ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}', headers: { 'content-type': 'application/json' } }) });
    for (const { method, url } of routes) {
      const asOwner = (await call(method, url, ownerKey)).status;
      const asDemoted = (await call(method, url, demotedKey)).status;
      const asRemoved = (await call(method, url, removedKey)).status;
      expect(asRemoved, `${method} ${url}`).toBe(401);
      if (roleForRoute(method, url) === 'owner') {
        expect(asDemoted, `${method} ${url}`).toBe(403);
        expect([401, 403], `${method} ${url}`).not.toContain(asOwner);
      } else {
        expect(asDemoted, `${method} ${url}`).toBe(asOwner);
      }
    }
  });

  it('shows the owners whose each key is, a removed person’s included', async () => {
    const owner = await signedInPerson(server);
    const other = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const created = await other.client.json<Key>('POST', '/manage/api/api-keys', { name: 'Theirs' });
    expect(created.body).toMatchObject({ user_id: other.userId, user_email: other.email });
    const mine = await owner.client.json<Key>('POST', '/manage/api/api-keys', { name: 'Mine' });
    await server.settle();
    const listed = await owner.client.json<{ data: Key[] }>('GET', '/manage/api/api-keys');
    expect(listed.body.data).toHaveLength(2);
    expect(listed.body.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ id: mine.body.id, user_id: owner.userId, user_email: owner.email }),
        expect.objectContaining({ id: created.body.id, user_id: other.userId, user_email: other.email }),
      ]),
    );
    expect((await owner.client.request('DELETE', `/manage/api/members/${other.userId}`)).status).toBe(204);
    await expect
      .poll(async () => (await owner.client.json<{ data: Key[] }>('GET', '/manage/api/api-keys')).body.data.find((k) => k.id === created.body.id), { timeout: 10_000 })
      .toMatchObject({ user_email: other.email, revoked_at: expect.any(Number) });
  });

  it('revokes only the removed person’s keys in that organization, and records an owner’s revocation as manual', async () => {
    const owner = await signedInPerson(server);
    const leaving = await signedInPerson(server, { organizationId: owner.organizationId, role: 'owner' });
    const theirs = await leaving.client.json<Key>('POST', '/manage/api/api-keys', { name: 'leaving' });
    const mine = await owner.client.json<Key>('POST', '/manage/api/api-keys', { name: 'staying' });
    const dropped = await owner.client.json<Key>('POST', '/manage/api/api-keys', { name: 'dropped' });
    await server.settle();
    expect((await owner.client.request('DELETE', `/manage/api/api-keys/${dropped.body.id}`)).status).toBe(204);
    const manual = (await server.services.store.readStream(`api_key-${dropped.body.id}`)).find((e) => e.type === 'ApiKeyRevoked');
    expect(manual?.data).toEqual({ revoked_at: expect.any(Number), reason: 'manual' });

    expect((await owner.client.request('DELETE', `/manage/api/members/${leaving.userId}`)).status).toBe(204);
    await expect
      .poll(async () => (await server.services.store.readStream(`api_key-${theirs.body.id}`)).some((e) => e.type === 'ApiKeyRevoked'), { timeout: 10_000 })
      .toBe(true);
    // The job has handled the removal (its checkpoint passed it): the owner's key is untouched.
    const removal = (await server.services.store.readStream(`user-${leaving.userId}`)).find((e) => e.type === 'MemberRemoved')!;
    await expect.poll(async () => (await server.services.readStore.readCheckpoint('job:api-key-revocation')) ?? -1, { timeout: 10_000 }).toBeGreaterThanOrEqual(removal.position);
    expect((await server.services.store.readStream(`api_key-${mine.body.id}`)).some((e) => e.type === 'ApiKeyRevoked')).toBe(false);
    expect((await server.fetch('/api/webhook-endpoints', { token: mine.body.token })).status).toBe(200);
  });
});
