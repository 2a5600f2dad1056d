import { describe, expect, it } from 'vitest';
import { DEFAULT_EMAIL_TEMPLATE, DEFAULT_REFERENCE_TEMPLATE, type EnrolInPromoAction } from '../../modules/automation/domain/actions.ts';
import { enrolmentFrom } from '../../modules/automation/domain/enrolment.ts';
import { isEmail } from '../../modules/promos/domain/promo.ts';

describe('enrol-in-promo fields taken from the webhook payload', () => {
  const action: EnrolInPromoAction = { type: 'enrol_in_promo', promo: 'launch', email: DEFAULT_EMAIL_TEMPLATE, reference: DEFAULT_REFERENCE_TEMPLATE };
  const from = (payload: Record<string, unknown>) => enrolmentFrom(action, { webhook_payload: payload, webhook_query: {} });

  it('takes a string email and a reference, a number as its digits', () => {
    expect(from({ email: ' Fan@Example.com ', ref: 'R-1' })).toEqual({ ok: true, email: 'Fan@Example.com', reference: 'R-1' });
    expect(from({ email: 'a@example.com', ref: 123 })).toEqual({ ok: true, email: 'a@example.com', reference: '123' });
    expect(from({ email: 'a@example.com', ref: null })).toEqual({ ok: true, email: 'a@example.com', reference: null });
  });

  it('fails as missing_email, naming the template, when the email is absent, null or blank', () => {
    for (const payload of [{}, { email: null, ref: 123 }, { email: '  ' }]) {
      const enrolment = from(payload);
      expect(enrolment).toMatchObject({ ok: false, error: 'missing_email', email: '' });
      expect(enrolment.ok ? '' : enrolment.message).toContain('{{webhook_payload.email}}');
    }
    expect(from({ email: null, ref: 123 })).toMatchObject({ reference: '123' });
  });

  it('fails as invalid_email for a number, an object or a malformed string', () => {
    for (const email of [42, true, { a: 1 }, ['x@example.com'], 'not-an-email', 'a@b', `${'a'.repeat(250)}@example.com`]) {
      expect(from({ email })).toMatchObject({ ok: false, error: 'invalid_email' });
    }
  });

  it('refuses a megabyte email at once and does not repeat it whole in the result', () => {
    // Without the length check first, the email pattern backtracks quadratically on this (hours).
    const email = `a@${'a.'.repeat(512 * 1024)}@`;
    const started = performance.now();
    const enrolment = from({ email });
    expect(performance.now() - started).toBeLessThan(100);
    expect(enrolment).toMatchObject({ ok: false, error: 'invalid_email' });
    expect(enrolment.ok ? 0 : enrolment.email.length).toBeLessThan(400);
    expect(isEmail(email)).toBe(false);
  });

  it('fails as invalid_reference for a reference over 1000 characters', () => {
    expect(from({ email: 'a@example.com', ref: 'r'.repeat(1000) })).toMatchObject({ ok: true });
    expect(from({ email: 'a@example.com', ref: 'r'.repeat(1001) })).toMatchObject({ ok: false, error: 'invalid_reference' });
  });
});
