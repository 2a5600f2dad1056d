import type { CommandContext } from '../../platform/es/index.ts';
import { customerKeyStream, keyHash, normalizeEmail } from '../customers/index.ts';

const PAGE = 1000;
/** Checkout's session streams and the event that records a purchase (type-only names: checkout calls us). */
const SESSION_PREFIX = 'checkout_session-';
const COMPLETED = 'CheckoutSessionCompleted';

/**
 * Whether the buyer (the customer given, else the one the email's claim names) completed a purchase
 * here before; read from the log, so a purchase a moment ago already counts.
 */
export async function hasCompletedPurchase(
  ctx: Pick<CommandContext, 'store'>,
  input: { organizationId: string; customerId: string | null; customerEmail: string | null; mode?: 'test' | 'live' },
): Promise<boolean> {
  const ids = new Set<string>();
  if (input.customerId) ids.add(input.customerId);
  if (input.customerEmail?.trim()) {
    for (const mode of input.mode ? [input.mode] : (['test', 'live'] as const)) {
      const key = `${mode}:email:${normalizeEmail(input.customerEmail)}`;
      const claims = await ctx.store.readStream(customerKeyStream(input.organizationId, keyHash(input.organizationId, key)));
      let holder: string | null = null;
      for (const e of claims) {
        const data = e.data as { customer_id: string };
        if (e.type === 'CustomerKeyClaimed') holder = data.customer_id;
        else if (e.type === 'CustomerKeyReleased' && holder === data.customer_id) holder = null;
      }
      if (holder) ids.add(holder);
    }
  }
  if (ids.size === 0) return false;
  let after: number | null = null;
  for (;;) {
    const events = await ctx.store.readAll({ after, limit: PAGE, streamPrefixes: [SESSION_PREFIX] });
    for (const e of events) {
      // Customer ids are of one organization each: the id alone says whose purchase it was.
      if (e.type !== COMPLETED) continue;
      const customer = (e.data as { customer_id?: string }).customer_id;
      if (customer && ids.has(customer)) return true;
    }
    if (events.length < PAGE) return false;
    after = events[events.length - 1]!.position;
  }
}
