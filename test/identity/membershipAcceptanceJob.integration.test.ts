import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { MEMBERSHIP_ACCEPTANCE_CHECKPOINT, membershipAcceptanceJob } from '../../modules/identity/jobs/membershipAcceptance.ts';
import type { Services } from '../../platform/runtime/services.ts';
import { handleCommand, type CommandContext } from '../../platform/es/handleCommand.ts';
import { loadUser, removeMember } from '../../modules/identity/accountCommands.ts';
import { createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { finishAcceptedMembership, inviteMember } from '../../modules/identity/invitationCommands.ts';
import { membershipInvitationDecider, membershipInvitationStream } from '../../modules/identity/domain/membershipInvitation.ts';

/**
 * Accepting an invitation appends the consent, then the membership. A crash between the two
 * leaves the consent alone in the log: the membership-acceptance subscriber records the
 * membership when it runs, and never adds back a person who joined through it and left.
 */
describe('the membership-acceptance job', () => {
  let dataDir: string;
  let services: Services & { close(): Promise<void> };
  const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };
  const ctx = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(Date.now() / 1000) },
  });
  /** The consent as the accept command records it first; the crash takes the membership's append. */
  const acceptOnly = (invitationId: string, userId: string, email: string) =>
    handleCommand(ctx(), membershipInvitationStream(invitationId), membershipInvitationDecider, {
      type: 'Accept',
      userId,
      userEmail: email,
      tokenHash: null,
      accountCreated: false,
      now: Math.floor(Date.now() / 1000),
    });
  const runJobToHead = async () => {
    const job = await membershipAcceptanceJob.start(services, logger);
    const head = (await services.store.headPosition())!;
    await expect.poll(async () => (await services.readStore.readCheckpoint(MEMBERSHIP_ACCEPTANCE_CHECKPOINT)) ?? -1, { timeout: 10_000 }).toBeGreaterThanOrEqual(head);
    await job.stop();
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'commerce-test-'));
    services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, logger });
  });
  afterAll(async () => {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('records the membership a crash left unrecorded, with the invited role, once', async () => {
    const home = (await createOrganization(ctx(), { name: 'Home', timezone: 'UTC' })).id;
    const inviting = (await createOrganization(ctx(), { name: 'Inviting', timezone: 'UTC' })).id;
    const person = await createUser(ctx(home), { email: 'carol@c.example', organizationId: home });
    const invitation = await inviteMember(ctx(inviting), { organizationId: inviting, email: 'carol@c.example', role: 'member', invitedBy: null });
    await acceptOnly(invitation.id, person.id, 'carol@c.example');
    expect((await loadUser(services.store, person.id))!.memberships).toEqual([home]);

    await runJobToHead();
    const after = (await loadUser(services.store, person.id))!;
    expect(after.memberships).toEqual([home, inviting]);
    expect(after.roles[inviting]).toBe('member');
    const joins = (await services.store.readStream(`user-${person.id}`)).filter((e) => e.type === 'UserJoinedOrganization');
    expect(joins.map((e) => e.data)).toEqual([expect.objectContaining({ organization_id: inviting, role: 'member', invitation_id: invitation.id })]);
  });

  it('never adds back a person who joined through the invitation and was removed since', async () => {
    const inviting = (await createOrganization(ctx(), { name: 'Inviting 2', timezone: 'UTC' })).id;
    const home = (await createOrganization(ctx(), { name: 'Home 2', timezone: 'UTC' })).id;
    const person = await createUser(ctx(home), { email: 'dave@d.example', organizationId: home });
    const invitation = await inviteMember(ctx(inviting), { organizationId: inviting, email: 'dave@d.example', role: 'owner', invitedBy: null });
    await acceptOnly(invitation.id, person.id, 'dave@d.example');
    // This time the job ran and recorded the membership, then the person was removed.
    await runJobToHead();
    expect((await loadUser(services.store, person.id))!.memberships).toContain(inviting);
    await removeMember(ctx(inviting), inviting, person.id);
    // The job handles the acceptance again (delivery is at least once): nothing changes.
    expect(await finishAcceptedMembership(ctx(inviting), invitation.id)).toBe(false);
    expect((await loadUser(services.store, person.id))!.memberships).toEqual([home]);
  });
});
