import { describe, expect, it } from 'vitest';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { stripeSecretBox } from '../../modules/payments/stripeAccountCommands.ts';
import { invoiceDecider, type InvoiceEvent, type InvoiceState } from '../../modules/checkout/domain/invoice.ts';
import { describeSecretKey, stripeAccountDecider } from '../../modules/payments/domain/stripeAccount.ts';
import { fold, asArray } from '../../platform/domain/decider.ts';

const created: InvoiceEvent = {
  type: 'InvoiceCreated',
  data: { id: 'in_1', number: 1, organization_id: 'org_a', session_id: 'cs_1', lines: [{ name: 'Pro', amount: 2400 }], total: 2400, currency: 'EUR', customer: null, created_at: 100 },
};
const paid: InvoiceEvent = { type: 'InvoicePaid', data: { attempt_id: 'pi_1', card: { brand: 'visa', last4: '4242' }, paid_at: 110, charge_id: 'ch_1', provider: 'stripe' } };
const state = (...events: InvoiceEvent[]): InvoiceState => fold(invoiceDecider, events);
const decide = (s: InvoiceState, command: Parameters<typeof invoiceDecider.decide>[0]) => asArray(invoiceDecider.decide(command, s));

describe('invoice refunds and disputes', () => {
  it('records each refunded unit once against the running total, whatever the order of reports', () => {
    const first = decide(state(created, paid), { type: 'RecordRefund', refundId: 're_1', chargeId: 'ch_1', amountRefunded: 500, now: 120 });
    expect(first).toEqual([{ type: 'InvoiceRefunded', data: { refund_id: 're_1', charge_id: 'ch_1', amount: 500, amount_refunded: 500, currency: 'EUR', fully_refunded: false, refunded_at: 120 } }]);
    const after = state(created, paid, ...first);
    // The same total again (the webhook of that refund), or an older one: nothing.
    expect(decide(after, { type: 'RecordRefund', refundId: 'evt_1', chargeId: 'ch_1', amountRefunded: 500, now: 121 })).toEqual([]);
    expect(decide(after, { type: 'RecordRefund', refundId: 'evt_0', chargeId: 'ch_1', amountRefunded: 300, now: 121 })).toEqual([]);
    const rest = decide(after, { type: 'RecordRefund', refundId: 're_2', chargeId: 'ch_1', amountRefunded: 2400, now: 130 });
    expect(rest[0]!.data).toMatchObject({ amount: 1900, amount_refunded: 2400, fully_refunded: true });
    // Refunds never reopen or void: the invoice stays paid.
    expect(state(created, paid, ...first, ...rest).status).toBe('paid');
  });

  it('refuses to refund an invoice that is not paid', () => {
    expect(() => decide(state(created), { type: 'RecordRefund', refundId: 're_1', chargeId: 'ch_1', amountRefunded: 100, now: 1 })).toThrow(/Only a paid invoice/);
  });

  it('records a dispute once per dispute id', () => {
    const command = { type: 'RecordDispute' as const, disputeId: 'dp_1', chargeId: 'ch_1', amount: 2400, currency: 'EUR', reason: 'fraudulent', status: 'needs_response', now: 140 };
    const events = decide(state(created, paid), command);
    expect(events).toHaveLength(1);
    expect(decide(state(created, paid, ...events), command)).toEqual([]);
  });

  it('records a PaymentIntent once, and none once the invoice is paid or void', () => {
    const command = { type: 'RecordPaymentIntent' as const, paymentIntentId: 'pi_1', attempt: 1, amount: 2400, currency: 'EUR', now: 105 };
    const events = decide(state(created), command);
    expect(events[0]!.type).toBe('InvoicePaymentIntentCreated');
    expect(decide(state(created, ...events), command)).toEqual([]);
    expect(() => decide(state(created, paid), { ...command, paymentIntentId: 'pi_2' })).toThrow(/already paid/);
    expect(() => decide(state(created, { type: 'InvoiceVoided', data: { voided_at: 1, reason: 'session_expired' } }), command)).toThrow(/void/);
  });

  it('records a payment returned because the invoice could no longer take it, once, and never for the one that paid', () => {
    const voided: InvoiceEvent = { type: 'InvoiceVoided', data: { voided_at: 1, reason: 'session_expired' } };
    const command = { type: 'RecordUnowedRefund' as const, paymentIntentId: 'pi_9', refundId: 're_9', chargeId: 'ch_9', amount: 2400, reason: 'invoice_void', now: 150 };
    const events = decide(state(created, voided), command);
    expect(events).toEqual([{ type: 'InvoiceUnowedPaymentRefunded', data: { payment_intent_id: 'pi_9', refund_id: 're_9', charge_id: 'ch_9', amount: 2400, currency: 'EUR', reason: 'invoice_void', refunded_at: 150 } }]);
    expect(decide(state(created, voided, ...events), command)).toEqual([]);
    expect(state(created, voided, ...events).status).toBe('void');
    expect(() => decide(state(created, paid), { ...command, paymentIntentId: 'pi_1' })).toThrow(/paid the invoice/);
  });

  it('pays once per PaymentIntent: the same one again changes nothing, another is refused', () => {
    const pay = { type: 'PayInvoice' as const, attemptId: 'pi_1', card: { brand: 'visa', last4: '4242' }, customer: null, chargeId: 'ch_1', provider: 'stripe', now: 110 };
    expect(decide(state(created, paid), pay)).toEqual([]);
    expect(() => decide(state(created, paid), { ...pay, attemptId: 'pi_2' })).toThrow(/already paid/);
  });
});

describe('a Stripe account', () => {
  it('tells secret and restricted keys, test and live, apart and refuses anything else', () => {
    expect(describeSecretKey('sk_live_abcdefgh1234')).toEqual({ type: 'secret', mode: 'live', last4: '1234' });
    expect(describeSecretKey('rk_test_abcdefgh9876')).toEqual({ type: 'restricted', mode: 'test', last4: '9876' });
    expect(describeSecretKey('pk_test_abcdefgh9876')).toBeNull();
    expect(describeSecretKey('sk_test_short')).toBeNull();
  });

  it('cannot be disconnected when not connected', () => {
    expect(() => stripeAccountDecider.decide({ type: 'Disconnect', organizationId: 'org_a', now: 1 }, { status: 'none' })).toThrow(/not found/);
  });

  it('seals its secrets under a key of their own: a webhook-endpoint box cannot open them', () => {
    const key = Buffer.alloc(32, 7);
    const sealed = stripeSecretBox(key).seal('sk_test_abcdefgh1234');
    expect(sealed).not.toContain('abcdefgh1234');
    expect(stripeSecretBox(key).open(sealed)).toBe('sk_test_abcdefgh1234');
    expect(() => secretBox(key).open(sealed)).toThrow();
    expect(() => stripeSecretBox(Buffer.alloc(32, 8)).open(sealed)).toThrow();
  });
});
