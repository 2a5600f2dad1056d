import { describe, expect, it } from 'vitest';
import { activations, formatSize, licenseTerms, sourceHref } from '../../dashboard/src/pages/benefits/benefitKit.ts';

describe("the benefits pages' words", () => {
  it('sizes a file as a file manager does', () => {
    expect(formatSize(0)).toBe('0 bytes');
    expect(formatSize(1)).toBe('1 byte');
    expect(formatSize(999)).toBe('999 bytes');
    expect(formatSize(3_145_728)).toBe('3.1 MB');
    expect(formatSize(512 * 1024 * 1024)).toBe('537 MB');
    expect(formatSize(2_000_000_000)).toBe('2.0 GB');
  });

  it("says a license key benefit's terms in one line", () => {
    expect(licenseTerms({ prefix: 'ZINE', activation_limit: 1, expires_after_days: 1, bound_to: 'subscription' })).toBe(
      'Prefix ZINE · 1 activation · Expires 1 day after the purchase · Ends with the subscription',
    );
    expect(licenseTerms({ prefix: null, activation_limit: null, expires_after_days: null, bound_to: 'perpetual' })).toBe('No prefix · Unlimited activations · Never expires · Perpetual');
    expect(activations(2, null)).toBe('2 / unlimited');
    expect(activations(2, 3)).toBe('2 / 3');
  });

  it('links a grant to what granted it', () => {
    expect(sourceHref({ type: 'checkout_session', id: 'cs 1' })).toBe('/dashboard/sales/cs%201');
    expect(sourceHref({ type: 'subscription', id: 'sub_1' })).toBe('/dashboard/subscriptions/sub_1');
  });
});
