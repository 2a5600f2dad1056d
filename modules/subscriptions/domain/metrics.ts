import { parseInterval } from './interval.ts';
import type { SubscriptionStatus } from './subscription.ts';

/**
 * Subscription metrics as of any instant, from each subscription's timeline (status and monthly
 * amount after each change, at the change's own time), so a past date answers the same later.
 *
 * MRR, as Stripe defines it: the subscriptions `active` or `past_due` at that instant (not
 * trialing, paused, unpaid or ended), each one's price per invoice period normalised to a month
 * and rounded per subscription (half up): monthly ÷ count, yearly ÷ (12 × count), weekly × 52 ÷ 12,
 * daily × 365 ÷ 12. Summed per currency, never across currencies.
 *
 * Movements count subscriptions over the 30 days before `as_of` (`as_of − 30 days` exclusive to
 * `as_of` inclusive): `new` first became active or past_due; `churned` were canceled after having
 * counted in MRR at some time (a trial canceled before paying is not churn); `reactivated` came
 * back into MRR after having left it without ending (resumed from a pause, paid after `unpaid`).
 */
export const METRICS_WINDOW_SECONDS = 30 * 86_400;

export type TimelinePoint = { at: number; status: SubscriptionStatus; monthly: number };

export const countsInMrr = (status: SubscriptionStatus) => status === 'active' || status === 'past_due';

/** The price of one invoice period as a month's, rounded half up to the minor unit. */
export function monthlyAmount(amount: number, invoiceInterval: string): number {
  const iv = parseInterval(invoiceInterval);
  if (!iv) return 0;
  const [num, den] =
    iv.unit === 'month' ? [1, iv.count] : iv.unit === 'year' ? [1, 12 * iv.count] : iv.unit === 'week' ? [52, 12 * iv.count] : [365, 12 * iv.count];
  return Math.floor((amount * num * 2 + den) / (2 * den));
}

/** The timeline with the point after an event added, when it changes status or amount. */
export function extendTimeline(timeline: readonly TimelinePoint[], point: TimelinePoint): TimelinePoint[] {
  const last = timeline.at(-1);
  if (last && last.status === point.status && last.monthly === point.monthly) return [...timeline];
  return [...timeline, point];
}

export type SubscriptionTimeline = { currency: string; timeline: readonly TimelinePoint[] };

export type SubscriptionMetrics = {
  as_of: number;
  window: { from: number; to: number };
  mrr: Record<string, number>;
  active_subscriptions: number;
  by_status: Partial<Record<SubscriptionStatus, number>>;
  new: number;
  churned: number;
  reactivated: number;
};

export function metricsAsOf(subscriptions: Iterable<SubscriptionTimeline>, asOf: number, windowSeconds = METRICS_WINDOW_SECONDS): SubscriptionMetrics {
  const from = asOf - windowSeconds;
  const mrr: Record<string, number> = {};
  const byStatus: Partial<Record<SubscriptionStatus, number>> = {};
  let active = 0;
  let added = 0;
  let churned = 0;
  let reactivated = 0;
  for (const sub of subscriptions) {
    let current: TimelinePoint | null = null;
    let everCounted = false;
    let isNew = false;
    let isChurned = false;
    let isReactivated = false;
    for (const point of sub.timeline) {
      if (point.at > asOf) break;
      const before = current;
      current = point;
      const inWindow = point.at > from;
      if (countsInMrr(point.status) && !(before && countsInMrr(before.status))) {
        if (inWindow) {
          if (everCounted) isReactivated = true;
          else isNew = true;
        }
        everCounted = true;
      }
      if (point.status === 'canceled' && inWindow && everCounted) isChurned = true;
    }
    if (!current) continue;
    byStatus[current.status] = (byStatus[current.status] ?? 0) + 1;
    if (countsInMrr(current.status)) {
      active += 1;
      mrr[sub.currency] = (mrr[sub.currency] ?? 0) + current.monthly;
    }
    if (isNew) added += 1;
    if (isChurned) churned += 1;
    if (isReactivated) reactivated += 1;
  }
  return { as_of: asOf, window: { from, to: asOf }, mrr, active_subscriptions: active, by_status: byStatus, new: added, churned, reactivated };
}
