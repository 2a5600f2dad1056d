import { describe, expect, it } from 'vitest';
import { invoiceDecider, type InvoiceEvent, type InvoiceState } from '../../modules/checkout/domain/invoice.ts';
import { asArray } from '../../platform/domain/decider.ts';
import type { AppliedDiscount, AppliedTax } from '../../platform/domain/index.ts';
import { statementAsOf } from '../../modules/subscriptions/domain/statement.ts';
import { DEFAULT_DUNNING, subscriptionDecider, type SubscriptionCommand, type SubscriptionEvent, type SubscriptionState } from '../../modules/subscriptions/domain/subscription.ts';

const DAY = 86_400;
const JAN1 = Date.UTC(2026, 0, 1) / 1000;
const FEB1 = Date.UTC(2026, 1, 1) / 1000;
const MAR1 = Date.UTC(2026, 2, 1) / 1000;
const CARD = { brand: 'visa', last4: '4242' };
const plan = (id: string) => ({ product_id: 'prod', plan_id: id, plan_name: id, renew_interval: 'P1M', invoice_interval: 'P1M' });

/** A subscription's log and its invoices' logs, made by the deciders as a billing run makes them. */
class Log {
  sub: SubscriptionEvent[] = [];
  invoices = new Map<string, InvoiceEvent[]>();
  private state: SubscriptionState = subscriptionDecider.initialState();
  private n = 0;

  run(command: SubscriptionCommand) {
    const events = asArray(subscriptionDecider.decide(command, this.state));
    for (const e of events) this.state = subscriptionDecider.evolve(this.state, e);
    this.sub.push(...events);
    return events;
  }

  invoice(id: string, command: Parameters<typeof invoiceDecider.decide>[0]) {
    const log = this.invoices.get(id) ?? [];
    const state = log.reduce<InvoiceState>(invoiceDecider.evolve, invoiceDecider.initialState());
    log.push(...asArray(invoiceDecider.decide(command, state)));
    this.invoices.set(id, log);
  }

  static start(amount = 1000, discount: AppliedDiscount | null = null) {
    const log = new Log();
    log.invoice('in_0', { type: 'CreateInvoice', invoice: { id: 'in_0', number: 1, organization_id: 'org', session_id: 'cs_1', lines: [{ name: 'basic', amount }], currency: 'EUR', customer: null }, now: JAN1 });
    log.invoice('in_0', { type: 'PayInvoice', attemptId: 'a', card: CARD, customer: null, now: JAN1 });
    log.run({
      type: 'CreateSubscription',
      subscription: {
        id: 'sub_1',
        organization_id: 'org',
        mode: 'test',
        customer: { email: 'b@example.com', name: null, user_id: null },
        offer: { uuid: 'u', id: 'o', slug: 's', name: 'n' },
        plan: plan('basic'),
        currency: 'EUR',
        lines: [{ name: 'basic', amount }],
        amount,
        session_id: 'cs_1',
        payment_method: null,
        billing_cycle_anchor: JAN1,
        current_period_start: JAN1,
        current_period_end: FEB1,
        trial_start: null,
        trial_end: null,
        first_invoice: { id: 'in_0', number: 1, amount, paid: true },
        test_clock: null,
        discount,
      },
      now: JAN1,
    });
    return log;
  }

  /** Invoices what is due at `at` and charges it once. */
  bill(at: number, decline: string | null = null, tax: AppliedTax | null = null) {
    const id = `in_${++this.n}`;
    const [created] = this.run({ type: 'CreateRenewalInvoice', invoiceId: id, number: this.n + 1, tax, now: at });
    if (created?.type !== 'SubscriptionInvoiceCreated') throw new Error('nothing due');
    const d = created.data;
    this.invoice(id, {
      type: 'CreateInvoice',
      invoice: { id, number: this.n + 1, organization_id: 'org', session_id: null, lines: d.lines, currency: 'EUR', customer: null, subscription_id: 'sub_1', billing_reason: d.billing_reason, period: { start: d.period_start, end: d.period_end }, amount_due: d.amount_due, ...(d.pricing ? { pricing: d.pricing } : {}) },
      now: at,
    });
    this.charge(id, at, decline);
    return id;
  }

  charge(id: string, at: number, decline: string | null) {
    const [attempted] = this.run({ type: 'AttemptPayment', invoiceId: id, now: at });
    const attempt = attempted?.type === 'SubscriptionPaymentAttempted' ? attempted.data.attempt : 1;
    if (decline) {
      const [failed] = this.run({ type: 'RecordPaymentFailed', invoiceId: id, attempt, code: 'card_declined', declineCode: decline, message: 'no', settings: DEFAULT_DUNNING, now: at });
      const next = failed?.type === 'SubscriptionPaymentFailed' ? failed.data.next_payment_attempt : null;
      this.invoice(id, { type: 'RecordPaymentFailure', attemptId: `${id}-${attempt}`, attempt, code: 'card_declined', declineCode: decline, message: 'no', nextPaymentAttempt: next, now: at });
      return;
    }
    this.invoice(id, { type: 'PayInvoice', attemptId: `${id}-${attempt}`, card: CARD, customer: null, now: at });
    this.run({ type: 'RecordPaymentSucceeded', invoiceId: id, attempt, chargeId: null, card: CARD, now: at });
  }

  statement(asOf: number) {
    return statementAsOf('sub_1', this.sub, this.invoices, asOf);
  }
}

describe('statement as of an instant', () => {
  it('counts a renewal only from the second it was invoiced and paid', () => {
    const log = Log.start();
    log.bill(FEB1);
    expect(log.statement(FEB1 - 1).totals).toMatchObject({ invoiced: 1000, paid: 1000, owed: 0 });
    expect(log.statement(FEB1).totals).toMatchObject({ invoiced: 2000, paid: 2000, owed: 0 });
    expect(log.statement(FEB1).current_period).toEqual({ start: FEB1, end: MAR1 });
    expect(log.statement(JAN1 - 1)).toMatchObject({ status: null, entries: [] });
  });

  it('answers the same for a past instant however much the log grew since', () => {
    const log = Log.start();
    log.bill(FEB1);
    const then = log.statement(FEB1 + DAY);
    log.run({ type: 'ChangePlan', plan: plan('pro'), lines: [{ name: 'pro', amount: 3000 }], behavior: 'create_prorations', now: FEB1 + 10 * DAY });
    log.bill(MAR1, 'insufficient_funds');
    log.run({ type: 'Cancel', atPeriodEnd: false, refund: 'none', requestedBy: 'seller', now: MAR1 + DAY });
    expect(log.statement(FEB1 + DAY)).toEqual(then);
  });

  it('owes a declined renewal with its attempt, writes it off when given up, and counts a late payment', () => {
    const log = Log.start();
    const id = log.bill(FEB1, 'insufficient_funds');
    const owed = log.statement(FEB1 + 1);
    expect(owed).toMatchObject({ status: 'past_due', totals: { owed: 1000, paid: 1000, written_off: 0 } });
    expect(owed.entries.at(-1)).toMatchObject({ type: 'payment_failed', attempt: 1, decline_code: 'insufficient_funds', next_payment_attempt: FEB1 + DAY });
    log.invoice(id, { type: 'MarkUncollectible', reason: 'retries exhausted', now: FEB1 + 20 * DAY });
    expect(log.statement(FEB1 + 20 * DAY).totals).toMatchObject({ owed: 0, written_off: 1000 });
    log.invoice(id, { type: 'PayInvoice', attemptId: 'late', card: CARD, customer: null, now: FEB1 + 25 * DAY });
    expect(log.statement(FEB1 + 25 * DAY).totals).toMatchObject({ owed: 0, written_off: 0, paid: 2000 });
  });

  it('carries a downgrade’s unused credit on the balance and takes it off the next invoice', () => {
    const log = Log.start(3000);
    // Down to 1000 half-way through January (31 days, 16 left): −1548 for the old, +516 for the new.
    log.run({ type: 'ChangePlan', plan: plan('cheap'), lines: [{ name: 'cheap', amount: 1000 }], behavior: 'create_prorations', now: JAN1 + 15 * DAY });
    expect(log.statement(JAN1 + 15 * DAY).totals.pending_prorations).toBe(-1548 + 516);
    log.bill(FEB1);
    const s = log.statement(FEB1);
    const invoice = s.entries.filter((e) => e.type === 'invoice').at(-1)!;
    // −1548 + 516 + 1000 = −32: nothing is due and 32 stays as credit.
    expect(invoice).toMatchObject({ total: -32, amount_due: 0 });
    expect(s.totals).toMatchObject({ credited: 1548, credit_balance: 32, owed: 0 });
  });

  it('ties a refund to the prorated cancellation that asked for it, and shows it due until recorded', () => {
    const log = Log.start();
    log.run({ type: 'Cancel', atPeriodEnd: false, refund: 'prorated', requestedBy: 'seller', now: JAN1 + 11 * DAY });
    // 20 of 31 days unused: 1000 × 20/31 = 645.16 → 645.
    const due = log.statement(JAN1 + 11 * DAY);
    expect(due.totals).toMatchObject({ refund_due: 645, refunded: 0 });
    log.invoice('in_0', { type: 'RecordRefund', refundId: 're_1', chargeId: 'ch', amountRefunded: 645, now: JAN1 + 12 * DAY });
    const refunded = log.statement(JAN1 + 12 * DAY);
    expect(refunded.totals).toMatchObject({ refund_due: 0, refunded: 645 });
    expect(refunded.entries.at(-1)).toMatchObject({ type: 'refund', reason: 'prorated_cancellation', amount: 645, proration: { seconds_left: 20 * DAY } });
    expect(log.statement(JAN1 + 11 * DAY)).toEqual(due);
  });

  it('states a renewal\'s discount and exclusive tax as lines, so its lines add up to what is due', () => {
    const discount: AppliedDiscount = {
      coupon: { id: 'co', name: 'Launch', percent_off: 20, amount_off: null, currency: null, duration: 'forever', duration_in_months: null, applies_to: null },
      promotion_code: { id: 'promo', code: 'LAUNCH20' },
    };
    const vat: AppliedTax = { tax_rate: { id: 'txr', display_name: 'VAT', percentage: 19, country: 'DE', state: null, jurisdiction: 'DE' }, percentage: 19, behavior: 'exclusive', taxability_reason: 'standard_rated', calculated_by: 'rate_table' };
    const log = Log.start(1000, discount);
    log.bill(FEB1, null, vat);
    const s = log.statement(FEB1);
    const invoice = s.entries.filter((e) => e.type === 'invoice').at(-1)!;
    // 1000 − 200 = 800, + 19% = 152: 952.
    expect(invoice).toMatchObject({
      total: 952,
      amount_due: 952,
      lines: [
        { name: 'basic', amount: 1000, reason: 'period' },
        { name: 'Discount (LAUNCH20)', amount: -200, reason: 'discount', period: { start: FEB1, end: MAR1 } },
        { name: 'VAT 19%', amount: 152, reason: 'tax' },
      ],
    });
    expect(s.totals).toMatchObject({ invoiced: 1000 + 1152, credited: 200, amount_due: 1000 + 952, paid: 1000 + 952, owed: 0 });
    expect(s.totals.invoiced - s.totals.credited - s.totals.credit_applied).toBe(s.totals.amount_due);
  });
});
