import { finishAcceptedMembership } from '../invitationCommands.ts';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { followFromCheckpoint, reactionContext } from '../../../platform/es/index.ts';
import type { Logger } from '../../../platform/es/index.ts';
import type { BackgroundJob, Services } from '../../../platform/runtime/index.ts';

export const MEMBERSHIP_ACCEPTANCE_CHECKPOINT = 'job:membership-acceptance';
const PREFIX = 'membership_invitation-';

async function handleBatch(services: Services, events: RecordedEvent[], logger: Logger): Promise<void> {
  for (const recorded of events) {
    if (recorded.type !== 'MembershipInvitationAccepted') continue;
    const invitationId = recorded.stream.slice(PREFIX.length);
    const ctx = reactionContext(services.store, services.clock(), recorded, 'membership-acceptance');
    if (await finishAcceptedMembership(ctx, invitationId)) logger.info({ invitation: invitationId }, 'membership of an accepted invitation recorded');
  }
}

/**
 * Accepting an invitation records the consent on the invitation's stream, then the membership on
 * the person's: this subscriber finishes a membership a crash left unrecorded between the two.
 * Delivery is at least once; a membership already recorded (or since ended) is left as it is.
 */
export const membershipAcceptanceJob: BackgroundJob = {
  name: 'membership-acceptance',
  start(services: Services, logger: Logger) {
    return followFromCheckpoint(services, logger, {
      checkpoint: MEMBERSHIP_ACCEPTANCE_CHECKPOINT,
      streamPrefixes: [PREFIX],
      batchSize: 200,
      handle: (events) => handleBatch(services, events, logger),
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${MEMBERSHIP_ACCEPTANCE_CHECKPOINT} to look at every acceptance again (a membership recorded is not recorded twice)`,
      failure: 'recording the memberships of accepted invitations failed; retrying from its checkpoint',
    });
  },
};
