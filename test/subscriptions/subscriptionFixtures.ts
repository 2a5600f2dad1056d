import { randomUUID } from 'node:crypto';
import { runImport } from '../../app/import/importFile.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { invoiceDecider, invoiceStream } from '../../modules/checkout/domain/invoice.ts';
import { nextDueAt } from '../../modules/subscriptions/domain/dueActions.ts';
import { DEFAULT_DUNNING, nextBoundary, subscriptionDecider, subscriptionStream, type Line, type PlanTerms } from '../../modules/subscriptions/domain/subscription.ts';
import { fold } from '../../platform/domain/decider.ts';
import { handleCommand } from '../../platform/es/handleCommand.ts';
import type { AppliedDiscount } from '../../platform/domain/index.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const DAY = 86_400;
/** 2026-01-15T00:00:00Z: the fixtures' subscriptions start around here. */
export const T0 = Date.UTC(2026, 0, 15) / 1000;

const CARD = { brand: 'visa', last4: '4242' };

/** A product with recurring plans (EUR monthly, a dearer EUR monthly, EUR yearly, USD monthly) and a one-time plan, imported as a seller would. */
export async function importPlans(server: TestServer, organizationId: string) {
  const key = `saas-${randomUUID().slice(0, 8)}`;
  const ctx = () => server.cliContext(organizationId);
  await runImport(
    { command: ctx(), organizationId, catchUp: server.settle },
    {
      products: [
        {
          key,
          name: 'SaaS',
          display_name: 'SaaS',
          description: 'The app',
          published: true,
          features: [],
          twins: [],
          plans: [
            { name: 'basic', display_name: 'Basic', description: 'Basic', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1000 }] },
            { name: 'pro', display_name: 'Pro', description: 'Pro', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 3000 }] },
            { name: 'yearly', display_name: 'Yearly', description: 'Yearly', renew_interval: 'P1Y', currency_code: 'EUR', charges: [{ amount: 12000 }] },
            { name: 'usd', display_name: 'USD', description: 'USD', renew_interval: 'P1M', currency_code: 'USD', charges: [{ amount: 1000 }] },
            { name: 'once', display_name: 'Once', description: 'Once', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 5000 }] },
          ],
        },
      ],
    },
  );
  const product = await loadProductByKey(ctx(), organizationId, key);
  if (!product) throw new Error('the product was not imported');
  const plan = (name: string) => product.plans.find((p) => p.name === name)!;
  const terms = (name: string): PlanTerms => {
    const p = plan(name);
    return { product_id: product.routeKey, plan_id: p.id, plan_name: p.name, renew_interval: p.renew_interval, invoice_interval: p.invoice_interval };
  };
  return { product, plan, terms };
}

let numbers = 1000;

/**
 * Writes a subscription's log as a billing run leaves it: the decider's commands on its stream
 * and the matching commands on its invoices' streams, each at the time given (the subscription's
 * own time).
 */
export class SubscriptionLog {
  readonly id = `sub_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
  private constructor(
    private readonly server: TestServer,
    readonly organizationId: string,
  ) {}

  private ctx() {
    return this.server.cliContext(this.organizationId);
  }

  private sub(command: Parameters<typeof subscriptionDecider.decide>[0]) {
    return handleCommand(this.ctx(), subscriptionStream(this.id), subscriptionDecider, command);
  }

  private invoice(id: string, command: Parameters<typeof invoiceDecider.decide>[0]) {
    return handleCommand(this.ctx(), invoiceStream(id), invoiceDecider, command);
  }

  /** A checkout's paid invoice (or a trial's zero one), then the subscription it made. */
  static async create(
    server: TestServer,
    organizationId: string,
    options: {
      plan: PlanTerms;
      amount: number;
      at: number;
      email?: string;
      trialDays?: number;
      currency?: string;
      mode?: 'test' | 'live';
      testClock?: string | null;
      paymentMethodId?: string;
      discount?: AppliedDiscount;
    },
  ) {
    const log = new SubscriptionLog(server, organizationId);
    const at = options.at;
    const trialEnd = options.trialDays ? at + options.trialDays * DAY : null;
    const periodEnd = trialEnd ?? nextBoundary(at, options.plan, at);
    const currency = options.currency ?? 'EUR';
    const email = options.email ?? `buyer-${log.id}@example.com`;
    const invoiceId = `in_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const number = ++numbers;
    const first = trialEnd ? 0 : options.amount;
    await log.invoice(invoiceId, {
      type: 'CreateInvoice',
      invoice: { id: invoiceId, number, organization_id: organizationId, session_id: `cs_${log.id}`, lines: [{ name: options.plan.plan_name, amount: first }], currency, customer: { email, name: 'Buyer', user_id: null } },
      now: at,
    });
    await log.invoice(invoiceId, { type: 'PayInvoice', attemptId: 'att_1', card: CARD, customer: null, chargeId: 'ch_test_1', now: at });
    const lines: Line[] = [{ name: options.plan.plan_name, amount: options.amount }];
    await log.sub({
      type: 'CreateSubscription',
      subscription: {
        id: log.id,
        organization_id: organizationId,
        mode: options.mode ?? 'test',
        customer: { email, name: 'Buyer', user_id: null },
        offer: { uuid: randomUUID(), id: 'off1', slug: 'saas', name: 'SaaS' },
        plan: options.plan,
        currency,
        lines,
        amount: options.amount,
        session_id: `cs_${log.id}`,
        payment_method: { id: options.paymentMethodId ?? 'pm_test_1', provider: 'test', card: CARD, exp_month: 12, exp_year: 2030 },
        billing_cycle_anchor: trialEnd ?? at,
        current_period_start: at,
        current_period_end: periodEnd,
        trial_start: trialEnd ? at : null,
        trial_end: trialEnd,
        first_invoice: { id: invoiceId, number, amount: first, paid: true },
        test_clock: options.testClock ?? null,
        ...(options.discount ? { discount: options.discount } : {}),
      },
      now: at,
    });
    return log;
  }

  /** The invoice the subscription's state asks for at `at` (a renewal, or an always_invoice change), then its charge: paid, or failed with `decline`. */
  async bill(at: number, outcome: { decline?: string } = {}): Promise<string> {
    const invoiceId = `in_${randomUUID().replaceAll('-', '').slice(0, 20)}`;
    const number = ++numbers;
    const made = await this.sub({ type: 'CreateRenewalInvoice', invoiceId, number, now: at });
    const created = made.events.find((e) => e.type === 'SubscriptionInvoiceCreated');
    if (!created || created.type !== 'SubscriptionInvoiceCreated') throw new Error('nothing to invoice');
    const d = created.data;
    await this.invoice(invoiceId, {
      type: 'CreateInvoice',
      invoice: {
        id: invoiceId,
        number,
        organization_id: this.organizationId,
        session_id: null,
        lines: d.lines,
        currency: made.state.status === 'none' ? 'EUR' : made.state.sub.currency,
        customer: made.state.status === 'none' ? null : made.state.sub.customer,
        subscription_id: this.id,
        billing_reason: d.billing_reason,
        period: { start: d.period_start, end: d.period_end },
        amount_due: d.amount_due,
        mode: made.state.status === 'none' ? 'test' : made.state.sub.mode,
      },
      now: at,
    });
    await this.charge(invoiceId, at, outcome);
    return invoiceId;
  }

  /** One attempt at the open invoice. */
  async charge(invoiceId: string, at: number, outcome: { decline?: string } = {}) {
    const attempted = await this.sub({ type: 'AttemptPayment', invoiceId, now: at });
    const attempt = attempted.events[0]?.type === 'SubscriptionPaymentAttempted' ? attempted.events[0].data.attempt : 1;
    if (outcome.decline) {
      const failed = await this.sub({ type: 'RecordPaymentFailed', invoiceId, attempt, code: 'card_declined', declineCode: outcome.decline, message: 'Declined', settings: DEFAULT_DUNNING, now: at });
      const next = failed.events[0]?.type === 'SubscriptionPaymentFailed' ? failed.events[0].data.next_payment_attempt : null;
      await this.invoice(invoiceId, { type: 'RecordPaymentFailure', attemptId: `${invoiceId}_a${attempt}`, attempt, code: 'card_declined', declineCode: outcome.decline, message: 'Declined', nextPaymentAttempt: next, now: at });
      return;
    }
    await this.invoice(invoiceId, { type: 'PayInvoice', attemptId: `${invoiceId}_a${attempt}`, card: CARD, customer: null, chargeId: `ch_test_${attempt}`, now: at });
    await this.sub({ type: 'RecordPaymentSucceeded', invoiceId, attempt, chargeId: `ch_test_${attempt}`, card: CARD, now: at });
  }

  /** When anything of the subscription is next due (null: never), for a billing run of the service. */
  async nextDue(): Promise<number | null> {
    const state = fold(subscriptionDecider, (await this.server.services.store.readStream(subscriptionStream(this.id))) as never);
    return nextDueAt(state);
  }

  /** A command of the seller's at `at` (the decider's, as the routes run it). */
  act(command: Parameters<typeof subscriptionDecider.decide>[0]) {
    return this.sub(command);
  }
}
