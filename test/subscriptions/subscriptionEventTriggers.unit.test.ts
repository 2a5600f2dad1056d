import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_TEMPLATE, DEFAULT_REFERENCE_TEMPLATE } from '../../modules/automation/domain/actions.ts';
import { enrolActionForEvent } from '../../modules/automation/domain/eventScope.ts';

describe('event triggers on subscription events', () => {
  it("enrol the subscription's or invoice's customer by default", () => {
    const action = { type: 'enrol_in_promo' as const, promo: 'loyal', email: DEFAULT_EMAIL_TEMPLATE, reference: DEFAULT_REFERENCE_TEMPLATE };
    for (const type of ['customer.subscription.created', 'customer.subscription.updated', 'customer.subscription.deleted', 'customer.subscription.trial_will_end', 'invoice.created', 'invoice.upcoming', 'invoice.payment_failed']) {
      expect(enrolActionForEvent(action, type)).toEqual({ ...action, email: '{{event.data.object.customer.email}}', reference: '{{event.data.object.id}}' });
    }
  });
});
