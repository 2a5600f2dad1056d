import { describe, expect, it } from 'vitest';
import { eventLabel } from '../../dashboard/src/actors.ts';
import { changes } from '../../dashboard/src/timeline.ts';
import type { SessionState } from '../../dashboard/src/types.ts';

const paid: SessionState = {
  id: 'cs_1',
  organization_id: 'org_1',
  status: 'completed',
  total: 2400,
  currency: 'EUR',
  mode: 'live',
  expires_at: 2_000_000_000,
  created_at: 1_900_000_000,
  offer: { uuid: 'u', id: 'o', slug: 'pro', name: 'Pro' },
  product_id: 'prod_pro',
  customer: { email: 'a@example.com', name: null, user_id: null },
  metadata: {},
  promo: null,
  promo_tier: null,
  started_at: null,
  cancelled_at: null,
  completed_at: 1_900_000_100,
  expired_at: null,
  payment: null,
  last_decline: null,
  invoice: { id: 'in_1', number: 1, status: 'paid', total: 2400, currency: 'EUR', customer: null },
};

describe('the timeline of a refunded or disputed sale', () => {
  it('gives refunds and disputes readable labels; other types still read as their words', () => {
    expect(eventLabel('InvoiceRefunded')).toBe('Refunded');
    expect(eventLabel('InvoiceDisputed')).toBe('Disputed by the buyer (chargeback)');
    expect(eventLabel('InvoiceUnowedPaymentRefunded')).toBe('Payment refunded: the invoice could no longer be paid');
    expect(eventLabel('CheckoutSessionCompleted')).toBe('Session completed');
    expect(eventLabel('InvoicePaid')).toBe('Invoice paid');
  });

  it('says what a refund and a dispute changed, though the invoice stays paid', () => {
    const refunded = { ...paid, invoice: { ...paid.invoice!, amount_refunded: 500 } };
    expect(changes(paid, refunded)).toEqual(['refunded: €0.00 → €5.00 of €24.00']);
    const again = { ...paid, invoice: { ...paid.invoice!, amount_refunded: 2400 } };
    expect(changes(refunded, again)).toEqual(['refunded: €5.00 → €24.00 of €24.00']);
    const disputed = { ...again, invoice: { ...again.invoice, disputes: 1 } };
    expect(changes(again, disputed)).toEqual(['disputes: 0 → 1']);
  });
});
