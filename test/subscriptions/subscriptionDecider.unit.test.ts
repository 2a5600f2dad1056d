import { describe, expect, it } from 'vitest';
import {
  DEFAULT_DUNNING,
  subscriptionDecider,
  type SubscriptionCommand,
  type SubscriptionCreatedData,
  type SubscriptionEvent,
  type SubscriptionState,
} from '../../modules/subscriptions/domain/subscription.ts';
import { nextAction } from '../../modules/subscriptions/domain/dueActions.ts';
import { asArray } from '../../platform/domain/decider.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const DAY = 86_400;
/** 2026-01-31T10:00:00Z: a month-end anchor. */
const T0 = Date.UTC(2026, 0, 31, 10) / 1000;
const at = (y: number, m: number, d: number) => Date.UTC(y, m - 1, d, 10) / 1000;

function created(overrides: Partial<SubscriptionCreatedData> = {}): Omit<SubscriptionCreatedData, 'created_at'> {
  return {
    id: 'sub_1',
    organization_id: 'org_a',
    mode: 'test',
    customer: { email: 'ada@example.com', name: 'Ada', user_id: null },
    offer: { uuid: 'u1', id: 'o1', slug: 'pro', name: 'Pro' },
    plan: { product_id: 'p1', plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' },
    currency: 'EUR',
    lines: [{ name: 'Pro monthly', amount: 1000 }],
    amount: 1000,
    session_id: 'cs_1',
    payment_method: { id: 'pm_card_visa', provider: 'test', card: { brand: 'visa', last4: '4242' }, exp_month: 12, exp_year: 2040 },
    billing_cycle_anchor: T0,
    current_period_start: T0,
    current_period_end: at(2026, 2, 28),
    trial_start: null,
    trial_end: null,
    first_invoice: { id: 'in_0', number: 1, amount: 1000, paid: true },
    test_clock: null,
    ...overrides,
  };
}

/** A log built by running commands one after another, as the billing process does. */
class Log {
  events: SubscriptionEvent[] = [];
  get state(): SubscriptionState {
    return this.events.reduce(subscriptionDecider.evolve, subscriptionDecider.initialState());
  }
  run(command: SubscriptionCommand): SubscriptionEvent[] {
    const out = asArray(subscriptionDecider.decide(command, this.state));
    this.events.push(...out);
    return out;
  }
  get active() {
    const s = this.state;
    if (s.status === 'none') throw new Error('no subscription');
    return s;
  }
  /** Renews once: invoice at the period end, claim the attempt, and record its outcome. */
  renew(outcome: 'paid' | { code: string; declineCode?: string }, invoiceId: string, settings = DEFAULT_DUNNING) {
    const now = this.active.current_period_end;
    this.run({ type: 'CreateRenewalInvoice', invoiceId, number: 2, now });
    return this.attempt(outcome, now, settings);
  }
  attempt(outcome: 'paid' | { code: string; declineCode?: string }, now: number, settings = DEFAULT_DUNNING) {
    const invoiceId = this.active.open_invoice!.id;
    this.run({ type: 'AttemptPayment', invoiceId, now });
    const attempt = this.active.open_invoice!.pending_attempt!;
    if (outcome === 'paid') return this.run({ type: 'RecordPaymentSucceeded', invoiceId, attempt, chargeId: `ch_${attempt}`, card: null, now });
    return this.run({ type: 'RecordPaymentFailed', invoiceId, attempt, code: outcome.code, declineCode: outcome.declineCode ?? null, message: 'declined', settings, now });
  }
}

function started(overrides: Partial<SubscriptionCreatedData> = {}): Log {
  const log = new Log();
  log.run({ type: 'CreateSubscription', subscription: created(overrides), now: overrides.current_period_start ?? T0 });
  return log;
}

describe('subscription decider: creation', () => {
  it('is active and entitled after a paid checkout', () => {
    const [e] = started().events;
    expect(e).toMatchObject({ type: 'SubscriptionCreated', data: { status: 'active', entitled: true } });
  });
  it('is trialing and entitled during a trial', () => {
    const log = started({ trial_start: T0, trial_end: T0 + 14 * DAY, billing_cycle_anchor: T0 + 14 * DAY, current_period_end: T0 + 14 * DAY, first_invoice: { id: 'in_0', number: 1, amount: 0, paid: true } });
    expect(log.events[0]!.data).toMatchObject({ status: 'trialing', entitled: true });
  });
  it('is incomplete and not entitled while the first payment waits for the buyer', () => {
    const log = started({ first_invoice: { id: 'in_0', number: 1, amount: 1000, paid: false } });
    expect(log.events[0]!.data).toMatchObject({ status: 'incomplete', entitled: false });
  });
  it('is made once: a second creation decides nothing', () => {
    const log = started();
    expect(log.run({ type: 'CreateSubscription', subscription: created(), now: T0 })).toEqual([]);
  });
  it('refuses a plan whose interval cannot be billed', () => {
    deciderSpec(subscriptionDecider)
      .given([])
      .when({ type: 'CreateSubscription', subscription: created({ plan: { ...created().plan, invoice_interval: 'PT1H' } }), now: T0 })
      .thenThrows('invalid_interval');
  });
});

describe('subscription decider: transitions', () => {
  it('incomplete → incomplete_expired after 23 hours, not before', () => {
    const log = started({ first_invoice: { id: 'in_0', number: 1, amount: 1000, paid: false } });
    expect(log.run({ type: 'ExpireIncomplete', now: T0 + 22 * 3600 })).toEqual([]);
    expect(nextAction(log.state, T0 + 23 * 3600)).toEqual({ type: 'expire_incomplete', at: T0 + 23 * 3600 });
    const [e] = log.run({ type: 'ExpireIncomplete', now: T0 + 23 * 3600 });
    expect(e!.data).toMatchObject({ status: 'incomplete_expired', entitled: false });
  });

  it('trialing → active when the first invoice at the trial end is paid', () => {
    const end = T0 + 14 * DAY;
    const log = started({ trial_start: T0, trial_end: end, billing_cycle_anchor: end, current_period_end: end, first_invoice: { id: 'in_0', number: 1, amount: 0, paid: true } });
    expect(nextAction(log.state, end - 3 * DAY)).toEqual({ type: 'trial_will_end', at: end - 3 * DAY });
    log.run({ type: 'NoticeTrialWillEnd', now: end - 3 * DAY });
    expect(nextAction(log.state, end)).toEqual({ type: 'invoice', at: end });
    const [paid] = log.renew('paid', 'in_1');
    expect(paid!.data).toMatchObject({ status: 'active', entitled: true, current_period_start: end, current_period_end: at(2026, 3, 14) });
  });

  it('trialing → past_due when the card fails at the trial end', () => {
    const end = T0 + 14 * DAY;
    const log = started({ trial_start: T0, trial_end: end, billing_cycle_anchor: end, current_period_end: end });
    const [failed] = log.renew({ code: 'card_declined', declineCode: 'generic_decline' }, 'in_1');
    expect(failed!.data).toMatchObject({ status: 'past_due', entitled: true, next_payment_attempt: end + DAY });
  });

  it('active → active on each paid renewal, month-end anchored (Jan 31 → Feb 28 → Mar 31)', () => {
    const log = started();
    log.renew('paid', 'in_1');
    expect(log.active.current_period_start).toBe(at(2026, 2, 28));
    expect(log.active.current_period_end).toBe(at(2026, 3, 31));
    log.renew('paid', 'in_2');
    expect(log.active.current_period_end).toBe(at(2026, 4, 30));
  });

  it('active → past_due, retried on the ladder, then → active when a retry pays', () => {
    const log = started();
    const due = log.active.current_period_end;
    log.renew({ code: 'card_declined', declineCode: 'generic_decline' }, 'in_1');
    expect(log.active.status).toBe('past_due');
    expect(nextAction(log.state, due + DAY)).toEqual({ type: 'charge', at: due + DAY, invoice_id: 'in_1' });
    const [paid] = log.attempt('paid', due + DAY);
    expect(paid!.data).toMatchObject({ status: 'active', entitled: true, attempt: 2 });
  });

  it('past_due stays entitled for the grace, then not, still past_due', () => {
    const log = started();
    const due = log.active.current_period_end;
    log.renew({ code: 'card_declined' }, 'in_1', { ...DEFAULT_DUNNING, grace_days: 2 });
    log.attempt({ code: 'card_declined' }, due + DAY);
    expect(nextAction(log.state, due + 2 * DAY)).toEqual({ type: 'grace_ended', at: due + 2 * DAY });
    const [e] = log.run({ type: 'EndGrace', now: due + 2 * DAY });
    expect(e!.data).toMatchObject({ status: 'past_due', entitled: false });
    const [paid] = log.attempt('paid', due + 3 * DAY);
    expect(paid!.data).toMatchObject({ status: 'active', entitled: true });
  });

  it('past_due → canceled after the last retry, at the last retry second', () => {
    const log = started();
    const due = log.active.current_period_end;
    log.renew({ code: 'card_declined' }, 'in_1');
    for (const day of [1, 3, 7]) log.attempt({ code: 'card_declined' }, due + day * DAY);
    expect(log.active.status).toBe('past_due');
    const last = log.attempt({ code: 'card_declined' }, due + 14 * DAY);
    expect(last.map((e) => e.type)).toEqual(['SubscriptionPaymentFailed', 'SubscriptionCanceled']);
    expect(last[1]!.data).toMatchObject({ status: 'canceled', entitled: false, reason: 'payment_failed', ended_at: due + 14 * DAY });
    expect(nextAction(log.state, due + 100 * DAY)).toBeNull();
  });

  it('past_due → unpaid when the organization says so', () => {
    const log = started();
    const settings = { ...DEFAULT_DUNNING, retry_days: [2], final_action: 'unpaid' as const };
    const due = log.active.current_period_end;
    log.renew({ code: 'card_declined' }, 'in_1', settings);
    const last = log.attempt({ code: 'card_declined' }, due + 2 * DAY, settings);
    expect(last[1]).toMatchObject({ type: 'SubscriptionMarkedUnpaid', data: { status: 'unpaid', entitled: false } });
  });

  it('a hard decline is not retried', () => {
    const log = started();
    const out = log.renew({ code: 'expired_card' }, 'in_1');
    expect(out[0]!.data).toMatchObject({ hard: true, next_payment_attempt: null });
    expect(out[1]!.data).toMatchObject({ status: 'canceled', reason: 'payment_failed' });
  });

  it('a new card retries an unpaid invoice at once', () => {
    const log = started();
    const due = log.active.current_period_end;
    log.renew({ code: 'card_declined' }, 'in_1');
    log.run({ type: 'UpdatePaymentMethod', paymentMethod: { id: 'pm_card_mastercard', provider: 'test', card: { brand: 'mastercard', last4: '4444' }, exp_month: 1, exp_year: 2041 }, now: due + 3600 });
    expect(nextAction(log.state, due + 3600)).toEqual({ type: 'charge', at: due + 3600, invoice_id: 'in_1' });
  });

  it('active → canceled at period end, reversible until then', () => {
    const log = started();
    const end = log.active.current_period_end;
    const [scheduled] = log.run({ type: 'Cancel', atPeriodEnd: true, refund: 'none', requestedBy: 'customer', now: T0 + DAY });
    expect(scheduled!.data).toMatchObject({ status: 'active', entitled: true, cancel_at: end });
    log.run({ type: 'Reactivate', now: T0 + 2 * DAY });
    expect(log.active.cancel_at).toBeNull();
    log.run({ type: 'Cancel', atPeriodEnd: true, refund: 'none', requestedBy: 'seller', now: T0 + 3 * DAY });
    expect(nextAction(log.state, end)).toEqual({ type: 'cancel_at_period_end', at: end });
    const [ended] = log.run({ type: 'CancelAtPeriodEnd', now: end });
    expect(ended!.data).toMatchObject({ status: 'canceled', entitled: false, reason: 'period_end', ended_at: end });
  });

  it('a yearly term billed monthly is canceled at the end of the term', () => {
    const log = started({ plan: { ...created().plan, renew_interval: 'P1Y' } });
    log.renew('paid', 'in_1');
    const [scheduled] = log.run({ type: 'Cancel', atPeriodEnd: true, refund: 'none', requestedBy: 'customer', now: at(2026, 3, 1) });
    expect(scheduled!.data).toMatchObject({ cancel_at: at(2027, 1, 31) });
  });

  it('active → canceled immediately, with a prorated refund of the unused time', () => {
    const log = started();
    const mid = T0 + 14 * DAY;
    const [e] = log.run({ type: 'Cancel', atPeriodEnd: false, refund: 'prorated', requestedBy: 'seller', now: mid });
    // 28-day period, 14 days used: half of 1000 back.
    expect(e!.data).toMatchObject({ status: 'canceled', entitled: false, reason: 'requested', refund: { invoice_id: 'in_0', amount: 500 } });
    expect(() => log.run({ type: 'Reactivate', now: mid + 1 })).toThrow(/ended/);
  });

  it('active → paused → active: no renewal while paused, a new period invoiced at resume', () => {
    const log = started();
    const [paused] = log.run({ type: 'Pause', now: T0 + DAY });
    expect(paused!.data).toMatchObject({ status: 'paused', entitled: false });
    expect(nextAction(log.state, T0 + 400 * DAY)).toBeNull();
    const resumeAt = T0 + 60 * DAY;
    const [resumed] = log.run({ type: 'Resume', now: resumeAt });
    expect(resumed!.data).toMatchObject({ status: 'active', entitled: true, billing_cycle_anchor: resumeAt });
    expect(nextAction(log.state, resumeAt)).toEqual({ type: 'invoice', at: resumeAt });
    log.renew('paid', 'in_1');
    // Apr 1 + one month.
    expect(log.active.current_period_end).toBe(at(2026, 5, 1));
  });

  it('refuses to pause a past_due subscription and to resume an active one', () => {
    const log = started();
    expect(() => log.run({ type: 'Resume', now: T0 + 1 })).toThrow(/paused/);
    log.renew({ code: 'card_declined' }, 'in_1');
    expect(() => log.run({ type: 'Pause', now: log.active.current_period_end + 1 })).toThrow(/past_due/);
  });
});

describe('subscription decider: plan changes', () => {
  const yearly = { product_id: 'p1', plan_id: 'pro-plus', plan_name: 'Pro Plus', renew_interval: 'P1M', invoice_interval: 'P1M' };

  it('create_prorations puts credit and charge on the next renewal invoice, with their derivation', () => {
    const log = started();
    const mid = T0 + 14 * DAY;
    const [changed] = log.run({ type: 'ChangePlan', plan: yearly, lines: [{ name: 'Pro Plus', amount: 3000 }], behavior: 'create_prorations', now: mid });
    const proration = (changed!.data as { proration: { amount: number; proration: { seconds_left: number } }[] }).proration;
    expect(proration.map((l) => l.amount)).toEqual([-500, 1500]);
    expect(proration[0]!.proration.seconds_left).toBe(14 * DAY);
    const end = log.active.current_period_end;
    const [invoiced] = log.run({ type: 'CreateRenewalInvoice', invoiceId: 'in_1', number: 2, now: end });
    expect(invoiced!.data).toMatchObject({ amount_due: -500 + 1500 + 3000, billing_reason: 'subscription_cycle' });
  });

  it('always_invoice invoices the difference at once', () => {
    const log = started();
    const mid = T0 + 14 * DAY;
    log.run({ type: 'ChangePlan', plan: yearly, lines: [{ name: 'Pro Plus', amount: 3000 }], behavior: 'always_invoice', now: mid });
    expect(nextAction(log.state, mid)).toMatchObject({ type: 'invoice' });
    const [invoiced] = log.run({ type: 'CreateRenewalInvoice', invoiceId: 'in_1', number: 2, now: mid });
    expect(invoiced!.data).toMatchObject({ amount_due: 1000, billing_reason: 'subscription_update' });
    const [paid] = log.attempt('paid', mid);
    // Paying a change keeps the period.
    expect(paid!.data).toMatchObject({ current_period_end: at(2026, 2, 28) });
  });

  it('a downgrade credit larger than the invoice stays on the balance', () => {
    const log = started({ lines: [{ name: 'Pro', amount: 10_000 }], amount: 10_000 });
    log.run({ type: 'ChangePlan', plan: yearly, lines: [{ name: 'Lite', amount: 100 }], behavior: 'always_invoice', now: T0 + DAY });
    const [invoiced] = log.run({ type: 'CreateRenewalInvoice', invoiceId: 'in_1', number: 2, now: T0 + DAY });
    expect(invoiced!.data).toMatchObject({ amount_due: 0 });
    expect(log.active.credit_balance).toBeGreaterThan(9000);
  });

  it('none changes the price from the next period only', () => {
    const log = started();
    const [changed] = log.run({ type: 'ChangePlan', plan: yearly, lines: [{ name: 'Pro Plus', amount: 3000 }], behavior: 'none', now: T0 + DAY });
    expect((changed!.data as { proration: unknown[] }).proration).toEqual([]);
    const [invoiced] = log.run({ type: 'CreateRenewalInvoice', invoiceId: 'in_1', number: 2, now: log.active.current_period_end });
    expect(invoiced!.data).toMatchObject({ amount_due: 3000 });
  });

  it("moves to another product's plan, and refuses another interval or the same plan", () => {
    const other = started();
    const [moved] = other.run({ type: 'ChangePlan', plan: { ...yearly, product_id: 'p2' }, lines: [{ name: 'Other', amount: 3000 }], behavior: 'none', now: T0 });
    expect(moved).toMatchObject({ type: 'SubscriptionPlanChanged', data: { to: { plan: { product_id: 'p2' } } } });
    expect(other.active.plan.product_id).toBe('p2');
    const log = started();
    expect(() => log.run({ type: 'ChangePlan', plan: { ...yearly, invoice_interval: 'P1Y' }, lines: [], behavior: 'none', now: T0 })).toThrow(/interval/);
    expect(() => log.run({ type: 'ChangePlan', plan: created().plan, lines: [], behavior: 'none', now: T0 })).toThrow(/already/);
  });
});

describe('subscription decider: every event says status and entitled', () => {
  it('holds over a long run', () => {
    const log = started();
    log.renew('paid', 'in_1');
    log.renew({ code: 'card_declined' }, 'in_2');
    log.attempt('paid', log.active.open_invoice!.next_payment_attempt!);
    log.run({ type: 'Pause', now: log.active.current_period_start + DAY });
    log.run({ type: 'Resume', now: log.active.current_period_start + 2 * DAY });
    for (const e of log.events) {
      expect(typeof (e.data as { entitled?: unknown }).entitled).toBe('boolean');
      expect(typeof (e.data as { status?: unknown }).status).toBe('string');
    }
  });
});

describe('subscription decider: a renewal in one append', () => {
  it('records the invoice and its first charge together, attempts counted from outcomes', () => {
    const log = started();
    const end = log.active.current_period_end;
    const out = log.run({ type: 'Renew', invoiceId: 'in_1', number: 2, amountCharged: 1000, outcome: { status: 'declined', code: 'card_declined', declineCode: 'generic_decline', message: 'no' }, settings: DEFAULT_DUNNING, now: end });
    expect(out.map((e) => e.type)).toEqual(['SubscriptionInvoiceCreated', 'SubscriptionPaymentFailed']);
    expect(out[1]!.data).toMatchObject({ attempt: 1, status: 'past_due', next_payment_attempt: end + DAY });
    // The retry without a claim is attempt 2; an outcome for another attempt decides nothing.
    expect(log.run({ type: 'RecordPaymentSucceeded', invoiceId: 'in_1', attempt: 3, chargeId: 'ch', card: null, now: end + DAY })).toEqual([]);
    const [paid] = log.run({ type: 'RecordPaymentSucceeded', invoiceId: 'in_1', attempt: 2, chargeId: 'ch', card: null, now: end + DAY });
    expect(paid!.data).toMatchObject({ status: 'active', attempt: 2 });
  });
  it('refuses to record a charge for another amount than the invoice now due', () => {
    const log = started();
    expect(() =>
      log.run({ type: 'Renew', invoiceId: 'in_1', number: 2, amountCharged: 999, outcome: { status: 'succeeded', chargeId: 'ch', card: null }, settings: DEFAULT_DUNNING, now: log.active.current_period_end }),
    ).toThrow(/differs/);
  });
  it('decides nothing before the period ends or when already renewed', () => {
    const log = started();
    const renew = (now: number) => log.run({ type: 'Renew', invoiceId: 'in_1', number: 2, amountCharged: 1000, outcome: { status: 'succeeded', chargeId: 'ch', card: null }, settings: DEFAULT_DUNNING, now });
    expect(renew(log.active.current_period_end - 1)).toEqual([]);
    const end = log.active.current_period_end;
    expect(renew(end)).toHaveLength(2);
    expect(renew(end)).toEqual([]);
  });
});

describe('subscription decider: unpaid', () => {
  it('bills nothing more while unpaid, and a new card pays the owed invoice and reactivates', () => {
    const log = started();
    const settings = { ...DEFAULT_DUNNING, final_action: 'unpaid' as const };
    const due = log.active.current_period_end;
    log.renew({ code: 'expired_card' }, 'in_1', settings);
    expect(log.active.status).toBe('unpaid');
    expect(nextAction(log.state, due + 400 * DAY)).toBeNull();
    log.run({ type: 'UpdatePaymentMethod', paymentMethod: { id: 'pm_card_mastercard', provider: 'test', card: { brand: 'mastercard', last4: '4444' }, exp_month: 1, exp_year: 2041 }, now: due + 40 * DAY });
    expect(nextAction(log.state, due + 40 * DAY)).toEqual({ type: 'charge', at: due + 40 * DAY, invoice_id: 'in_1' });
    const [paid] = log.run({ type: 'RecordPaymentSucceeded', invoiceId: 'in_1', attempt: 2, chargeId: 'ch', card: null, now: due + 40 * DAY });
    expect(paid!.data).toMatchObject({ status: 'active', entitled: true });
  });
});
