import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { manageClient, signedInPerson } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Key = { id: string; token: string; name: string; revoked_at: number | null };

describe('organization settings, members and API keys', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  it('an owner renames the organization and sets its time zone; a member may not; bad input changes nothing', async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const changed = await owner.client.json('PATCH', '/manage/api/organization', { name: 'Renamed', timezone: 'Asia/Tokyo' });
    expect(changed).toEqual({ status: 200, body: { id: owner.organizationId, name: 'Renamed', timezone: 'Asia/Tokyo', address: null, vat_number: null, brand_color: null, logo_url: null, allowed_redirect_origins: [] } });
    expect((await member.client.json('GET', '/manage/api/organization')).body).toMatchObject({ name: 'Renamed', timezone: 'Asia/Tokyo' });
    const refused = await member.client.json('PATCH', '/manage/api/organization', { name: 'Mine now' });
    expect(refused).toEqual({ status: 403, body: { message: 'This action is unauthorized.', code: 'unauthorized' } });
    const bad = await owner.client.json('PATCH', '/manage/api/organization', { timezone: 'Mars/Olympus' });
    expect(bad).toMatchObject({ status: 422, body: { errors: { timezone: [expect.any(String)] } } });
    expect((await owner.client.json('GET', '/manage/api/organization')).body).toMatchObject({ name: 'Renamed', timezone: 'Asia/Tokyo' });
  });

  it('an owner sets the brand colour (stored lower case, recorded once), removes it, and gets 422 naming the field for anything but #rrggbb', async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const set = await owner.client.json('PATCH', '/manage/api/organization', { brand_color: '#FFD500' });
    expect(set).toMatchObject({ status: 200, body: { brand_color: '#ffd500' } });
    expect((await member.client.json('GET', '/manage/api/organization')).body).toMatchObject({ brand_color: '#ffd500' });
    expect((await member.client.json('PATCH', '/manage/api/organization', { brand_color: '#000000' })).status).toBe(403);
    // The same colour again, in any case, records nothing; other changes leave it as it is.
    const updates = async () =>
      (await server.services.store.readStream(`organization-${owner.organizationId}`)).filter((e) => e.type === 'OrganizationUpdated').length;
    const before = await updates();
    expect((await owner.client.json('PATCH', '/manage/api/organization', { brand_color: '#ffd500' })).status).toBe(200);
    expect((await owner.client.json('PATCH', '/manage/api/organization', { brand_color: '#FFD500', vat_number: null })).status).toBe(200);
    expect(await updates()).toBe(before);
    expect((await owner.client.json('PATCH', '/manage/api/organization', { name: 'Yellow Shop' })).body).toMatchObject({ name: 'Yellow Shop', brand_color: '#ffd500' });
    for (const bad of ['red', '#fff', '#12345g', 'ffd500', '#ffd5000', '#ffd500;}body{', 42]) {
      const refused = await owner.client.json('PATCH', '/manage/api/organization', { brand_color: bad });
      expect(refused).toMatchObject({ status: 422, body: { errors: { brand_color: [expect.any(String)] } } });
    }
    expect((await owner.client.json('GET', '/manage/api/organization')).body).toMatchObject({ brand_color: '#ffd500' });
    expect((await owner.client.json('PATCH', '/manage/api/organization', { brand_color: null })).body).toMatchObject({ brand_color: null });
  });

  it('an owner invites a member (who accepts the link), changes their role and removes them; members manage no one; the last owner stays', async () => {
    const owner = await signedInPerson(server);
    const invited = await owner.client.json<{ id: string; role: string; invitation_link: string }>('POST', '/manage/api/members', { email: 'new-member@example.com' });
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'new-member@example.com', role: 'member', status: 'invited', invitation_link: expect.stringContaining('/dashboard/invitation#token=inv_') });
    const token = invited.body.invitation_link.split('#token=')[1]!;
    const newcomer = manageClient(server);
    const accepted = await newcomer.json<{ user: { id: string } }>('POST', '/manage/api/invitations/accept', { token, password: 'newcomer passphrase' });
    expect(accepted.status).toBe(200);
    const newcomerId = accepted.body.user.id;
    expect((await owner.client.json('POST', '/manage/api/members', { email: 'new-member@example.com' })).status).toBe(409);

    // A member can neither invite, nor change roles, nor see or make keys.
    expect((await newcomer.json('POST', '/manage/api/members', { email: 'x@example.com' })).status).toBe(403);
    expect((await newcomer.json('PATCH', `/manage/api/members/${owner.userId}`, { role: 'member' })).status).toBe(403);
    expect((await newcomer.json('GET', '/manage/api/api-keys')).status).toBe(403);
    expect((await newcomer.json('POST', '/manage/api/api-keys', { name: 'mine' })).status).toBe(403);

    await server.settle();
    const members = await owner.client.json<{ data: Array<{ id: string; role: string }> }>('GET', '/manage/api/members');
    expect(members.body.data.map((m) => m.role).sort()).toEqual(['member', 'owner']);

    expect((await owner.client.json('PATCH', `/manage/api/members/${owner.userId}`, { role: 'member' })).body).toMatchObject({ code: 'last_owner' });
    expect((await owner.client.json('PATCH', `/manage/api/members/${newcomerId}`, { role: 'owner' })).body).toMatchObject({ role: 'owner' });
    // Promoted: the newcomer's next request is an owner's.
    expect((await newcomer.json('GET', '/manage/api/api-keys')).status).toBe(200);
    await server.settle();
    expect((await owner.client.json('PATCH', `/manage/api/members/${newcomerId}`, { role: 'nobody' })).status).toBe(422);
    expect((await owner.client.request('DELETE', `/manage/api/members/${newcomerId}`)).status).toBe(204);
    // Removed: in no organization now, the session may do nothing here.
    expect((await newcomer.json('GET', '/manage/api/organization')).status).toBe(403);
  });

  it('an owner creates a key (token shown once) that works as a bearer, lists it without the token, and revokes it', async () => {
    const owner = await signedInPerson(server);
    const created = await owner.client.json<Key>('POST', '/manage/api/api-keys', { name: 'Zapier' });
    expect(created.status).toBe(201);
    expect(created.body.token).toMatch(/^csk_key_/);
    expect((await server.fetch('/api/users/me', { token: created.body.token })).status).toBe(200);
    await server.settle();
    const listed = await owner.client.json<{ data: Key[] }>('GET', '/manage/api/api-keys');
    expect(listed.body.data).toEqual([expect.objectContaining({ id: created.body.id, name: 'Zapier', revoked_at: null })]);
    expect(JSON.stringify(listed.body)).not.toContain(created.body.token.slice(-32));
    expect((await owner.client.request('DELETE', `/manage/api/api-keys/${created.body.id}`)).status).toBe(204);
    await server.settle();
    expect((await server.fetch('/api/users/me', { token: created.body.token })).status).toBe(401);
    expect((await owner.client.json('POST', '/manage/api/api-keys', { name: '' })).status).toBe(422);
  });

  it("answers another organization's member and key ids exactly as unknown ones, and changes nothing", async () => {
    const mine = await signedInPerson(server);
    const theirs = await signedInPerson(server);
    const theirKey = await theirs.client.json<Key>('POST', '/manage/api/api-keys', { name: 'theirs' });
    await server.settle();
    const pairs = [
      ['DELETE', `/manage/api/api-keys/${theirKey.body.id}`, '/manage/api/api-keys/key_AAAAAAAAAAAAAAAA', undefined],
      ['PATCH', `/manage/api/members/${theirs.userId}`, '/manage/api/members/usr_nothere', { role: 'member' }],
      ['DELETE', `/manage/api/members/${theirs.userId}`, '/manage/api/members/usr_nothere', undefined],
    ] as const;
    for (const [method, foreign, unknown, body] of pairs) {
      const a = await mine.client.json(method, foreign, body);
      const b = await mine.client.json(method, unknown, body);
      expect(a.status).toBe(404);
      expect(a).toEqual(b);
    }
    expect((await server.fetch('/api/users/me', { token: theirKey.body.token })).status).toBe(200);
    expect((await theirs.client.json('GET', '/manage/api/organization')).status).toBe(200);
  });
});
