import { describe, expect, it } from 'vitest';
import { declineInPlainWords, paymentFailedEmail, type PaymentFailedEmailInput } from '../../modules/subscriptions/domain/dunningEmail.ts';

const decline = (code: string, decline_code: string | null = null, message = 'Provider says no.') => ({ code, decline_code, message });

describe('a decline in plain words', () => {
  it('reads a suspicion of fraud, loss or theft as a plain refusal', () => {
    for (const code of ['stolen_card', 'lost_card', 'pickup_card', 'fraudulent']) {
      expect(declineInPlainWords(decline('card_declined', code))).toBe('Your bank declined the payment.');
      expect(declineInPlainWords(decline(code))).toBe('Your bank declined the payment.');
    }
  });
  it('says what the buyer can act on, the decline code before the code, else the provider’s message', () => {
    expect(declineInPlainWords(decline('card_declined', 'insufficient_funds'))).toBe('The card has insufficient funds.');
    expect(declineInPlainWords(decline('expired_card'))).toBe('The card has expired.');
    expect(declineInPlainWords(decline('card_declined', 'something_new', 'Try another card.'))).toBe('Try another card.');
  });
});

describe('the payment-failed email', () => {
  const base: PaymentFailedEmailInput = {
    organizationName: 'Acme Tools',
    organizationAddress: ['Keizersgracht 123', '1015 CJ Amsterdam', 'NL'],
    customerName: 'Ada',
    offerName: 'Pro',
    planName: 'Monthly',
    amount: 1999,
    currency: 'EUR',
    period: { start: Date.UTC(2026, 10, 27) / 1000, end: Date.UTC(2026, 11, 27) / 1000 },
    card: { brand: 'visa', last4: '0341' },
    failure: { ...decline('card_declined', 'generic_decline'), hard: false, next_payment_attempt: Date.UTC(2026, 10, 30, 10) / 1000 },
    outcome: 'retry',
    linkSlot: '<LINK>',
  };
  it('asks the card holder to confirm a payment their bank held, through the link', () => {
    const email = paymentFailedEmail({ ...base, failure: { ...base.failure, ...decline('authentication_required', 'authentication_required') } });
    expect(email.text).toContain('  Reason: Your bank asks you to confirm the payment.');
    expect(email.text).toContain('To confirm the payment with your bank now, open:\n<LINK>\n');
    expect(email.text).not.toContain('another card');
  });

  it('on a retry: the amount, period, card, reason, the retry day and the link', () => {
    const email = paymentFailedEmail(base);
    expect(email.withLink).toBe(true);
    expect(email.text).toContain('  Amount: €19.99\n  For: 27 Nov 2026 – 27 Dec 2026\n  Card: visa ending in 0341\n  Reason: Your bank declined the payment.');
    expect(email.text).toContain('We will try the card again on 30 Nov 2026.');
    expect(email.text).toContain('\n<LINK>\n');
    expect(email.text.endsWith('Acme Tools\nKeizersgracht 123\n1015 CJ Amsterdam\nNL')).toBe(true);
  });
  it('on the end: no link, and why no retry comes after a hard decline', () => {
    const ended = paymentFailedEmail({ ...base, outcome: 'canceled', failure: { ...decline('expired_card'), hard: true, next_payment_attempt: null } });
    expect(ended.withLink).toBe(false);
    expect(ended.text).not.toContain('<LINK>');
    expect(ended.text).toContain('This card cannot be charged again, so no further attempt will be made.');
    expect(ended.subject).toBe('Your Pro subscription has ended: the payment failed');
    const unpaid = paymentFailedEmail({ ...base, outcome: 'unpaid', failure: { ...base.failure, next_payment_attempt: null } });
    expect(unpaid.withLink).toBe(true);
    expect(unpaid.text).toContain('That was the last attempt.');
    expect(unpaid.text).toContain('<LINK>');
  });
});
