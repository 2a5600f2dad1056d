import {
  INCOMPLETE_EXPIRES_AFTER,
  isEnded,
  TRIAL_WILL_END_BEFORE,
  UPCOMING_BEFORE,
  type SubscriptionState,
} from './subscription.ts';

/** What is due next, and when; the billing process runs each at its time, oldest first. */
export type DueAction =
  | { type: 'expire_incomplete'; at: number }
  | { type: 'charge'; at: number; invoice_id: string }
  | { type: 'cancel_at_period_end'; at: number }
  | { type: 'grace_ended'; at: number }
  | { type: 'trial_will_end'; at: number }
  | { type: 'upcoming'; at: number }
  | { type: 'invoice'; at: number };

/** Every action the subscription has pending, by due time; the first one at or before `now` is due. */
export function nextAction(state: SubscriptionState, now: number): DueAction | null {
  if (state.status === 'none' || isEnded(state.status)) return null;
  if (state.status === 'paused') return state.cancel_at !== null && state.cancel_at <= now ? { type: 'cancel_at_period_end', at: state.cancel_at } : null;
  const candidates: DueAction[] = [];
  const inv = state.open_invoice;
  if (state.status === 'incomplete') {
    candidates.push({ type: 'expire_incomplete', at: state.sub.created_at + INCOMPLETE_EXPIRES_AFTER });
  } else if (inv) {
    if (inv.pending_attempt !== null) candidates.push({ type: 'charge', at: inv.period_start, invoice_id: inv.id });
    else if (inv.next_payment_attempt !== null) candidates.push({ type: 'charge', at: inv.next_payment_attempt, invoice_id: inv.id });
    if (state.status === 'past_due' && !state.grace_ended && inv.grace_until !== null) {
      candidates.push({ type: 'grace_ended', at: inv.grace_until });
    }
  }
  if (state.status !== 'incomplete') {
    if (state.cancel_at !== null) candidates.push({ type: 'cancel_at_period_end', at: state.cancel_at });
    if (!inv && state.invoice_now.length > 0) candidates.push({ type: 'invoice', at: state.current_period_start });
    if (!inv && (state.cancel_at === null || state.cancel_at > state.current_period_end)) {
      candidates.push({ type: 'invoice', at: state.current_period_end });
      const length = state.current_period_end - state.current_period_start;
      if (state.status === 'trialing' && state.trial_end !== null && state.trial_notice_for !== state.trial_end && length > TRIAL_WILL_END_BEFORE) {
        candidates.push({ type: 'trial_will_end', at: state.trial_end - TRIAL_WILL_END_BEFORE });
      } else if (state.status === 'active' && state.upcoming_notice_for !== state.current_period_end && length > UPCOMING_BEFORE) {
        candidates.push({ type: 'upcoming', at: state.current_period_end - UPCOMING_BEFORE });
      }
    }
  }
  let first: DueAction | null = null;
  for (const c of candidates) if (first === null || c.at < first.at) first = c;
  return first !== null && first.at <= now ? first : null;
}

/** When anything is next due (for the schedule's index); null when nothing ever will be. */
export function nextDueAt(state: SubscriptionState): number | null {
  return nextAction(state, Number.MAX_SAFE_INTEGER)?.at ?? null;
}
