import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyRevocationJob, API_KEY_REVOCATION_CHECKPOINT } from '../../modules/identity/jobs/apiKeyRevocation.ts';
import { compose } from '../../app/compose.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import type { Services } from '../../platform/runtime/services.ts';
import { handleCommand, type CommandContext } from '../../platform/es/handleCommand.ts';
import { removeMember } from '../../modules/identity/accountCommands.ts';
import { createApiKey, createOrganization, createUser } from '../../modules/identity/identityCommands.ts';
import { userDecider, userStream } from '../../modules/identity/domain/user.ts';

/**
 * The revocation of a removed member's keys is a subscriber with its own checkpoint: a removal
 * made while it was not running (a crash) is handled when it starts, once, and only the keys the
 * person made in that organization before the removal are revoked.
 */
describe('the api-key-revocation job', () => {
  let dataDir: string;
  let services: Services & { close(): Promise<void> };
  const logger = { error: (o: object, m: string) => console.error(m, o), info: () => undefined };
  const ctx = (organizationId: string | null = null): CommandContext => ({
    store: services.store,
    metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: Math.floor(Date.now() / 1000) },
  });
  const revocations = async (keyId: string) => (await services.store.readStream(`api_key-${keyId}`)).filter((e) => e.type === 'ApiKeyRevoked').map((e) => e.data);
  const caughtUp = async () => {
    const head = (await services.store.headPosition())!;
    await expect.poll(async () => (await services.readStore.readCheckpoint(API_KEY_REVOCATION_CHECKPOINT)) ?? -1, { timeout: 10_000 }).toBeGreaterThanOrEqual(head);
  };

  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'commerce-test-'));
    // Projections run; no background job does until the test starts this one.
    services = await compose(loadConfig({ DATA_DIR: dataDir, LOG_LEVEL: 'silent' }), { runProjections: true, logger });
  });
  afterAll(async () => {
    await services.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('revokes, once it runs, the keys a removed person made there before the removal, and nothing else', async () => {
    const org = (await createOrganization(ctx(), { name: 'Org', timezone: 'UTC' })).id;
    const elsewhere = (await createOrganization(ctx(), { name: 'Other', timezone: 'UTC' })).id;
    const leaving = await createUser(ctx(org), { email: 'leaving@example.com', organizationId: org });
    const staying = await createUser(ctx(org), { email: 'staying@example.com', organizationId: org });
    await handleCommand(ctx(elsewhere), userStream(leaving.id), userDecider, { type: 'JoinOrganization', organizationId: elsewhere, role: 'owner', now: 1 });
    const theirs = await createApiKey(ctx(org), { userId: leaving.id, organizationId: org });
    const theirsElsewhere = await createApiKey(ctx(elsewhere), { userId: leaving.id, organizationId: elsewhere });
    const stayingKey = await createApiKey(ctx(org), { userId: staying.id, organizationId: org });
    await removeMember(ctx(org), org, leaving.id);
    // Back in the organization, with a new key: the old removal does not touch it.
    await handleCommand(ctx(org), userStream(leaving.id), userDecider, { type: 'JoinOrganization', organizationId: org, role: 'member', now: 2 });
    const afterRejoin = await createApiKey(ctx(org), { userId: leaving.id, organizationId: org });
    expect(await revocations(theirs.id)).toEqual([]);

    const job = await apiKeyRevocationJob.start(services, logger);
    await caughtUp();
    await job.stop();
    expect(await revocations(theirs.id)).toEqual([{ revoked_at: expect.any(Number), reason: 'member_removed' }]);
    for (const kept of [theirsElsewhere, stayingKey, afterRejoin]) expect(await revocations(kept.id)).toEqual([]);

    // Started again from its checkpoint: nothing is recorded twice.
    const head = await services.store.headPosition();
    const again = await apiKeyRevocationJob.start(services, logger);
    await caughtUp();
    await again.stop();
    expect(await services.store.headPosition()).toBe(head);
    expect(await revocations(theirs.id)).toHaveLength(1);
  });
});
