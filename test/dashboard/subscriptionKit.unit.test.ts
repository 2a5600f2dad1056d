import { describe, expect, it } from 'vitest';
import { duration, fromLocalInput, intervalWords, lineReason, momentIndex, moneyPerCurrency, nextStep, statementMoments, subscriptionChanges, subscriptionEventLabel, toLocalInput } from '../../dashboard/src/pages/subscriptions/subscriptionKit.ts';
import type { SubscriptionResource as Subscription } from '../../modules/subscriptions/index.ts';

const DAY = 86_400;
const T = Date.UTC(2026, 2, 15) / 1000;

const sub = (over: Partial<Subscription> = {}): Subscription => ({
  id: 'sub_1',
  object: 'subscription',
  status: 'active',
  entitled: true,
  mode: 'test',
  customer: { email: 'a@example.com', name: null },
  customer_id: null,
  offer: { id: 'o', slug: 'o', name: 'O' },
  plan: { id: 'p', name: 'basic', product_id: 'prod', renew_interval: 'P1M', invoice_interval: 'P1M' },
  currency: 'EUR',
  amount: 1000,
  billing_cycle_anchor: T,
  current_period_start: T,
  current_period_end: T + 31 * DAY,
  trial_start: null,
  trial_end: null,
  cancel_at_period_end: false,
  cancel_at: null,
  canceled_at: null,
  ended_at: null,
  pause_collection: null,
  payment_method: null,
  latest_invoice: null,
  next_payment_attempt: null,
  test_clock: null,
  discount: null,
  created_at: T,
  sequence: 1,
  ...over,
});

describe("the subscription screens' words and figures", () => {
  it('names intervals as a seller reads them', () => {
    expect(['P1D', 'P1W', 'P2W', 'P1M', 'P3M', 'P6M', 'P1Y'].map(intervalWords)).toEqual(['day', 'week', '2 weeks', 'month', '3 months', '6 months', 'year']);
    expect(intervalWords('PT5M')).toBe('PT5M');
    expect(intervalWords(null)).toBe('—');
  });

  it("says what comes next: a retry before a scheduled end, the trial's end, the renewal, or the end", () => {
    expect(nextStep(sub())).toEqual({ label: 'Renews', at: T + 31 * DAY });
    expect(nextStep(sub({ status: 'trialing', trial_end: T + 14 * DAY }))).toEqual({ label: 'Trial ends', at: T + 14 * DAY });
    expect(nextStep(sub({ cancel_at_period_end: true, cancel_at: T + 31 * DAY }))).toEqual({ label: 'Ends', at: T + 31 * DAY });
    expect(nextStep(sub({ status: 'past_due', next_payment_attempt: T + DAY, cancel_at_period_end: true, cancel_at: T + 31 * DAY }))).toEqual({ label: 'Next payment attempt', at: T + DAY });
    expect(nextStep(sub({ status: 'canceled', ended_at: T + 2 * DAY }))).toEqual({ label: 'Ended', at: T + 2 * DAY });
    expect(nextStep(sub({ status: 'paused', pause_collection: { behavior: 'void', paused_at: T + 3 * DAY, resumes_at: null } }))).toEqual({ label: 'Paused since', at: T + 3 * DAY });
  });

  it('shows MRR per currency, largest first, never summed across currencies', () => {
    expect(moneyPerCurrency({})).toBe('€0.00');
    expect(moneyPerCurrency({}, 'USD')).toBe('$0.00');
    expect(moneyPerCurrency({ USD: 500, EUR: 4000 })).toBe('€40.00 · $5.00');
    expect(moneyPerCurrency({ JPY: 1500 })).toBe('¥1,500');
  });

  it('stops the statement slider at each distinct event time and at now; an instant between stops sits on the one before', () => {
    const stops = statementMoments([T, T + DAY, T + DAY, T + 5 * DAY], T + 9 * DAY);
    expect(stops).toEqual([T, T + DAY, T + 5 * DAY, T + 9 * DAY]);
    expect(momentIndex(stops, null)).toBe(3);
    expect(momentIndex(stops, T + 2 * DAY)).toBe(1);
    expect(momentIndex(stops, T - 1)).toBe(0);
    expect(statementMoments([], null)).toEqual([]);
  });

  it("gives each statement line its reason: the period, the checkout, or the proration's derivation", () => {
    const period = { start: T, end: T + 31 * DAY };
    expect(lineReason({ name: 'basic', amount: 1000, reason: 'period', period, proration: null }, 'EUR')).toBe('Period Mar 15, 2026 – Apr 15, 2026');
    expect(lineReason({ name: 'basic', amount: 1000, reason: 'checkout', period, proration: null }, 'EUR')).toBe('Paid at checkout, for Mar 15, 2026 – Apr 15, 2026');
    const proration = { side: 'credit' as const, price: 1000, old_price: 1000, new_price: 3000, old_plan: 'basic', new_plan: 'pro', period_start: T, period_end: T + 31 * DAY, changed_at: T + 10 * DAY, seconds_used: 10 * DAY, seconds_left: 21 * DAY, billing_cycle_anchor: T, proration_behavior: 'create_prorations' as const, rounding: 'per_line_half_away_from_zero' as const };
    const credit = lineReason({ name: 'basic', amount: -677, reason: 'proration', period, proration }, 'EUR');
    expect(credit).toMatch(/^Credit for the unused time of basic \(€10\.00 a period\), changed Mar 25, 2026.*: 10 days used, 21 days left of Mar 15, 2026 – Apr 15, 2026; rounded per line, half away from zero$/);
    expect(lineReason({ name: 'pro', amount: 2032, reason: 'proration', period, proration: { ...proration, side: 'charge', price: 3000 } }, 'EUR')).toMatch(/^Charge for the rest of the period on pro \(€30\.00 a period\)/);
    expect(duration(3 * DAY + 4 * 3600)).toBe('3 days 4 h');
    expect(duration(90)).toBe('1 min');
  });

  it('reads and writes a date-time field to the second, so an advance to a renewal reaches it', () => {
    for (const t of [T, T + 59, T + 31 * DAY + 3661, Date.UTC(2027, 0, 31, 23, 59, 59) / 1000]) expect(fromLocalInput(toLocalInput(t))).toBe(t);
    expect(toLocalInput(T + 5)).toMatch(/^2026-03-1[45]T\d{2}:\d{2}:05$/);
    expect(fromLocalInput(toLocalInput(T).slice(0, 16))).toBe(T);
    expect(fromLocalInput('')).toBeNull();
    expect(fromLocalInput('tomorrow')).toBeNull();
  });

  it('says what an event changed, and names the events in words', () => {
    expect(subscriptionChanges(sub(), sub({ status: 'past_due', next_payment_attempt: null, cancel_at: null }))).toEqual(['status: Active → Past due']);
    expect(subscriptionChanges(sub(), sub({ status: 'canceled', entitled: false }))).toEqual(['status: Active → Canceled', 'entitled: yes → no']);
    expect(subscriptionChanges(null, sub())).toEqual(['status: Active', 'entitled: yes', 'plan: basic, €10.00 / month']);
    expect(subscriptionEventLabel('SubscriptionCancelUnscheduled')).toBe('Reactivated: the scheduled cancellation is undone');
    expect(subscriptionEventLabel('SubscriptionSomethingNew')).toBe('Something new');
  });
});
