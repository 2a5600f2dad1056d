import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { inviteUser } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { manageClient, signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type Invited = { id: string; email: string; role: string; status: string; joined_at: number | null; invitation_expires_at: number; invitation_link: string };
type Listed = { data: Array<{ id: string; email: string; role: string; status: string }> };
type Pending = { data: Array<{ id: string; organization: { id: string; name: string }; role: string }> };

const tokenOf = (link: string) => link.split('#token=')[1]!;

/**
 * Inviting an email is a pending membership its person accepts as themselves: it never touches
 * an existing account, and the inviter cannot tell whether the email had one.
 */
describe('membership invitations', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer();
  });
  afterAll(() => server.close({ remove: true }));

  const invite = (owner: ManageClient, email: string, role = 'member') => owner.json<Invited>('POST', '/manage/api/members', { email, role });

  it("an owner of another organization cannot take over an invited person's account through an invitation", async () => {
    // Carol was added to org B and has not yet used her own link.
    const orgB = await createOrganization(server.cliContext(), { name: 'Org B', timezone: 'UTC' });
    const carol = await createUser(server.cliContext(orgB.id), { email: 'carol@c.example', organizationId: orgB.id });
    const carolsLink = await inviteUser(server.cliContext(orgB.id), carol.id);

    const attacker = await signedInPerson(server);
    const invited = await invite(attacker.client, 'carol@c.example', 'owner');
    expect(invited.status).toBe(201);
    expect(invited.body).toMatchObject({ email: 'carol@c.example', role: 'owner', status: 'invited', joined_at: null });
    expect(invited.body.id).toMatch(/^inv_/);

    // The attacker's link cannot set Carol's password, nor sign anyone in.
    const tried = await manageClient(server).json('POST', '/manage/api/invitations/accept', { token: tokenOf(invited.body.invitation_link), password: 'attacker passphrase' });
    expect(tried).toMatchObject({ status: 409, body: { code: 'account_exists' } });
    expect((await manageClient(server).json('POST', '/manage/api/invitations/passkey/options', { token: tokenOf(invited.body.invitation_link) })).status).toBe(409);

    // Carol's own link still works, and she is in org B only.
    const carolClient = manageClient(server);
    const accepted = await carolClient.json<{ current_organization: { id: string }; organizations: unknown[] }>('POST', '/manage/api/invitations/accept', { token: carolsLink.token, password: 'carol passphrase' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.current_organization.id).toBe(orgB.id);
    expect(accepted.body.organizations).toEqual([]);
    expect((await carolClient.json('PUT', '/manage/api/session/organization', { organization_id: attacker.organizationId })).status).toBe(404);

    await server.settle();
    const members = await attacker.client.json<Listed>('GET', '/manage/api/members');
    expect(members.body.data.find((m) => m.email === 'carol@c.example')).toMatchObject({ status: 'invited', role: 'owner' });
  });

  it('answers the same whether or not the email has an account', async () => {
    const owner = await signedInPerson(server);
    const existing = await signedInPerson(server);
    const a = await invite(owner.client, existing.email);
    const b = await invite(owner.client, 'nobody-yet@example.com');
    expect(a.status).toBe(201);
    expect(b.status).toBe(201);
    const shape = (body: Invited) => Object.fromEntries(Object.entries(body).map(([k, v]) => [k, k === 'email' ? 'email' : typeof v === 'string' ? v.replace(/inv_[0-9a-f]{24}(\.[0-9A-Za-z]{32})?/, 'inv') : typeof v]));
    expect(shape(a.body)).toEqual(shape(b.body));
    // The link's lookup says the same too.
    const lookA = await manageClient(server).json<Record<string, unknown>>('POST', '/manage/api/invitations/lookup', { token: tokenOf(a.body.invitation_link) });
    const lookB = await manageClient(server).json<Record<string, unknown>>('POST', '/manage/api/invitations/lookup', { token: tokenOf(b.body.invitation_link) });
    expect(lookA.status).toBe(200);
    expect(Object.keys(lookA.body).sort()).toEqual(Object.keys(lookB.body).sort());
    expect(lookA.body).not.toHaveProperty('has_password');
  });

  it('an existing person becomes a member only by accepting, signed in as themselves, with the role invited', async () => {
    const owner = await signedInPerson(server);
    const dana = await signedInPerson(server);
    const invited = await invite(owner.client, dana.email, 'owner');
    expect(invited.status).toBe(201);
    await server.settle();

    // Not a member yet: her session cannot switch there, the members list shows her invited.
    expect((await dana.client.json('PUT', '/manage/api/session/organization', { organization_id: owner.organizationId })).status).toBe(404);
    expect((await owner.client.json<Listed>('GET', '/manage/api/members')).body.data.find((m) => m.email === dana.email)).toMatchObject({ status: 'invited' });
    // Her own credentials are untouched: her password still signs her in.
    expect((await manageClient(server).json('POST', '/manage/api/sign-in', { email: dana.email, password: dana.password })).status).toBe(200);

    // Someone else signed in cannot accept it.
    const other = await signedInPerson(server);
    const link = tokenOf(invited.body.invitation_link);
    expect((await other.client.json('POST', `/manage/api/invitations/${invited.body.id}/accept`, { token: link })).status).toBe(404);
    expect((await other.client.json<Pending>('GET', '/manage/api/invitations')).body.data).toEqual([]);

    const pending = await dana.client.json<Pending>('GET', '/manage/api/invitations');
    expect(pending.body.data).toEqual([expect.objectContaining({ id: invited.body.id, organization: expect.objectContaining({ id: owner.organizationId }), role: 'owner' })]);
    // Accepting takes the link: the invitation's id alone (from Home) does not do.
    expect((await dana.client.json('POST', `/manage/api/invitations/${invited.body.id}/accept`, {})).status).toBe(422);
    const accepted = await dana.client.json<{ current_organization: { id: string; role: string } }>('POST', `/manage/api/invitations/${invited.body.id}/accept`, { token: link });
    expect(accepted.status).toBe(200);
    expect(accepted.body.current_organization).toMatchObject({ id: owner.organizationId, role: 'owner' });

    await server.settle();
    const members = await owner.client.json<Listed>('GET', '/manage/api/members');
    expect(members.body.data.filter((m) => m.email === dana.email)).toEqual([expect.objectContaining({ id: dana.userId, status: 'active', role: 'owner' })]);
    expect((await dana.client.json<Pending>('GET', '/manage/api/invitations')).body.data).toEqual([]);

    // Removed later, the used invitation cannot bring her back.
    expect((await owner.client.request('DELETE', `/manage/api/members/${dana.userId}`)).status).toBe(204);
    expect((await dana.client.json('POST', `/manage/api/invitations/${invited.body.id}/accept`, { token: link })).status).toBe(410);
  });

  it('a declined invitation leaves no membership and no pending row', async () => {
    const owner = await signedInPerson(server);
    const erin = await signedInPerson(server);
    const invited = await invite(owner.client, erin.email);
    expect((await erin.client.request('POST', `/manage/api/invitations/${invited.body.id}/decline`, {})).status).toBe(204);
    expect((await erin.client.json('POST', `/manage/api/invitations/${invited.body.id}/accept`, { token: tokenOf(invited.body.invitation_link) })).status).toBe(410);
    await server.settle();
    expect((await owner.client.json<Listed>('GET', '/manage/api/members')).body.data.map((m) => m.email)).toEqual([owner.email]);
  });

  it('a new email sets up its account through its link, as a member, once', async () => {
    const owner = await signedInPerson(server);
    const invited = await invite(owner.client, 'Newcomer@Example.com');
    const token = tokenOf(invited.body.invitation_link);
    // Another organization inviting the same email leaves this link as it was.
    const elsewhere = await signedInPerson(server);
    const second = await invite(elsewhere.client, 'newcomer@example.com', 'owner');
    expect(second.status).toBe(201);
    const shown = await manageClient(server).json('POST', '/manage/api/invitations/lookup', { token });
    expect(shown).toMatchObject({ status: 200, body: { kind: 'membership', email: 'newcomer@example.com', role: 'member', organization: { name: expect.any(String) } } });

    const newcomer = manageClient(server);
    const accepted = await newcomer.json<{ user: { id: string }; current_organization: { id: string; role: string } }>('POST', '/manage/api/invitations/accept', { token, password: 'newcomer passphrase' });
    expect(accepted.status).toBe(200);
    expect(accepted.body.current_organization).toMatchObject({ id: owner.organizationId, role: 'member' });
    expect((await manageClient(server).json('POST', '/manage/api/invitations/accept', { token, password: 'another passphrase' })).status).toBe(410);
    expect((await manageClient(server).json('POST', '/manage/api/sign-in', { email: 'newcomer@example.com', password: 'newcomer passphrase' })).status).toBe(200);

    await server.settle();
    const members = await owner.client.json<Listed>('GET', '/manage/api/members');
    expect(members.body.data.find((m) => m.email === 'newcomer@example.com')).toMatchObject({ id: accepted.body.user.id, status: 'active' });
    expect((await invite(owner.client, 'newcomer@example.com')).body).toMatchObject({ code: 'already_a_member' });

    // Signed in, the newcomer sees the other organization's invitation, and joins it with its link.
    const pending = await newcomer.json<Pending>('GET', '/manage/api/invitations');
    expect(pending.body.data).toEqual([expect.objectContaining({ id: second.body.id, organization: expect.objectContaining({ id: elsewhere.organizationId }), role: 'owner' })]);
    expect((await newcomer.json('POST', `/manage/api/invitations/${second.body.id}/accept`, { token: tokenOf(second.body.invitation_link) })).status).toBe(200);
  });

  it('an account made through one organization’s link cannot join another without that one’s link', async () => {
    // Org A's owner holds the link for an email with no account, and makes the account himself.
    const attacker = await signedInPerson(server);
    const bait = await invite(attacker.client, 'victim@v.example');
    const hijacked = manageClient(server);
    expect((await hijacked.json('POST', '/manage/api/invitations/accept', { token: tokenOf(bait.body.invitation_link), password: 'attacker passphrase' })).status).toBe(200);
    // Org B invites the real person as an owner; its link goes to them, not to the attacker.
    const orgB = await signedInPerson(server);
    const real = await invite(orgB.client, 'victim@v.example', 'owner');
    const other = await invite(attacker.client, 'someone-else@v.example');
    await server.settle();
    expect((await hijacked.json('POST', `/manage/api/invitations/${real.body.id}/accept`, {})).status).toBe(422);
    // Another invitation's link, or a made-up one, does not open it either.
    expect((await hijacked.json('POST', `/manage/api/invitations/${real.body.id}/accept`, { token: tokenOf(other.body.invitation_link) })).status).toBe(410);
    expect((await hijacked.json('POST', `/manage/api/invitations/${real.body.id}/accept`, { token: `${real.body.id}.${'x'.repeat(32)}` })).status).toBe(410);
    await server.settle();
    expect((await orgB.client.json<Listed>('GET', '/manage/api/members')).body.data.find((m) => m.email === 'victim@v.example')).toMatchObject({ status: 'invited' });
    expect((await hijacked.json('PUT', '/manage/api/session/organization', { organization_id: orgB.organizationId })).status).toBe(404);
  });

  it('owners revoke a pending invitation; members and other organizations cannot', async () => {
    const owner = await signedInPerson(server);
    const member = await signedInPerson(server, { organizationId: owner.organizationId, role: 'member' });
    const stranger = await signedInPerson(server);
    const invited = await invite(owner.client, 'revoked@example.com');
    expect((await member.client.request('DELETE', `/manage/api/members/${invited.body.id}`)).status).toBe(403);
    expect((await stranger.client.request('DELETE', `/manage/api/members/${invited.body.id}`)).status).toBe(404);
    expect((await owner.client.request('DELETE', `/manage/api/members/${invited.body.id}`)).status).toBe(204);
    expect((await owner.client.request('DELETE', `/manage/api/members/${invited.body.id}`)).status).toBe(404);
    const token = tokenOf(invited.body.invitation_link);
    expect((await manageClient(server).json('POST', '/manage/api/invitations/lookup', { token })).status).toBe(410);
    expect((await manageClient(server).json('POST', '/manage/api/invitations/accept', { token, password: 'too late now' })).status).toBe(410);
    await server.settle();
    expect((await owner.client.json<Listed>('GET', '/manage/api/members')).body.data.some((m) => m.email === 'revoked@example.com')).toBe(false);
  });
});
