import { randomUUID } from 'node:crypto';
import { expireSession } from '../sessionCommands.ts';
import type { CommandContext, Logger } from '../../../platform/es/index.ts';
import { CHECKOUT_SESSIONS, type SessionDoc } from '../checkoutProjection.ts';
import { type Services, intervalJob } from '../../../platform/runtime/index.ts';

const BATCH = 200;

/**
 * Records `CheckoutSessionExpired` (and voids the open invoice) for every open session past its
 * expiry. Readers already show such sessions as expired; this makes it part of the record.
 * Safe to run in several processes: each expiry is a command with an expected revision, and an
 * already expired session decides nothing.
 */
export async function expireDueSessions(services: Services, logger?: Logger): Promise<number> {
  const now = Math.floor(services.clock() / 1000);
  const due = await services.readStore.find<SessionDoc>(CHECKOUT_SESSIONS, {
    filter: { status: 'open', expires_at: { $lte: now } },
    sort: [['expires_at', 1]],
    limit: BATCH,
  });
  let expired = 0;
  const correlation = `job_${randomUUID()}`;
  for (const session of due) {
    const ctx: CommandContext = {
      store: services.store,
      metadata: {
        correlation_id: correlation,
        actor: { type: 'system', name: 'checkout-session-expiry' },
        organization_id: session.organization_id,
        occurred_at: now,
      },
    };
    try {
      const result = await expireSession(ctx, session.id);
      if (result.expired) expired += 1;
    } catch (error) {
      // One session that cannot be settled (a conflict) must not hold up the others.
      logger?.error({ err: error, session: session.id }, 'could not expire checkout session');
    }
  }
  return expired;
}

export const checkoutSessionExpiryJob = intervalJob({
  name: 'checkout-session-expiry',
  intervalMs: (services) => services.config.CHECKOUT_EXPIRY_INTERVAL_MS,
  async pass(services, logger) {
    const expired = await expireDueSessions(services, logger);
    if (expired > 0) logger.info({ expired }, 'checkout sessions expired');
  },
  failure: 'checkout session expiry failed; retrying at the next tick',
});
