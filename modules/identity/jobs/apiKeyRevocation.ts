import { revokeKeysOfRemovedMember } from '../identityCommands.ts';
import type { UserEvent } from '../domain/user.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { Logger } from '../../../platform/es/index.ts';
import { API_KEYS, identityProjection, type ApiKeyDoc } from '../identityProjection.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';

export const API_KEY_REVOCATION_CHECKPOINT = 'job:api-key-revocation';

/** How long a batch waits for the identity read model to list the removed person's keys. */
const CATCH_UP_MS = 30_000;

class IdentityBehind extends Error {}

/**
 * The identity projection has applied the log up to `position`: every key made before it is in
 * the read model. It runs beside this job (same process or another under its lease): wait for it.
 */
async function identityReached(services: Services, position: number): Promise<void> {
  const deadline = Date.now() + CATCH_UP_MS;
  for (;;) {
    const at = services.projections?.checkpointOf(identityProjection.name) ?? (await services.readStore.readCheckpoint(identityProjection.name));
    if (at !== null && at >= position) return;
    if (Date.now() >= deadline) throw new IdentityBehind(`the identity projection has not reached position ${position}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const recorded of events) {
    const event = recorded as unknown as UserEvent;
    if (event.type !== 'MemberRemoved') continue;
    const userId = recorded.stream.slice('user-'.length);
    const organizationId = event.data.organization_id;
    await identityReached(services, recorded.position);
    const keys = await services.readStore.find<ApiKeyDoc>(API_KEYS, { filter: { organization_id: organizationId, user_id: userId } });
    if (keys.length === 0) continue;
    const ctx = reactionContext(services.store, services.clock(), recorded, 'api-key-revocation', organizationId);
    const revoked = await revokeKeysOfRemovedMember(ctx, { userId, organizationId, removedAt: recorded.position, keyIds: keys.map((k) => k.id) });
    if (revoked.length > 0) logger.info({ user: userId, organization: organizationId, api_keys: revoked }, 'API keys of a removed member revoked');
  }
}

/**
 * A key acts with its creator's rights, so their removal ends it: for each `MemberRemoved` this
 * subscriber revokes (`member_removed`) every key they made there. The auth check already refuses
 * such keys; this makes it final and visible. Revoking a revoked key records nothing.
 */
export const apiKeyRevocationJob: BackgroundJob = {
  name: 'api-key-revocation',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: API_KEY_REVOCATION_CHECKPOINT,
      streamPrefixes: ['user-'],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${API_KEY_REVOCATION_CHECKPOINT} to look at every removal again (a key revoked before is not revoked twice)`,
      failure: 'revoking the API keys of removed members failed; retrying from its checkpoint',
    });
  },
};
