import { describe, expect, it } from 'vitest';
import { activations, licenseTerms, sourceHref } from '../../dashboard/src/pages/benefits/benefitKit.ts';
import { formatBytes } from '../../platform/domain/byteSize.ts';

describe("the benefits pages' words", () => {
  it("sizes a file as the buyer's thank-you page and receipt do (1024-based)", () => {
    expect(formatBytes(0)).toBe('0 B');
    expect(formatBytes(1023)).toBe('1023 B');
    expect(formatBytes(1024)).toBe('1.0 KB');
    expect(formatBytes(3_145_728)).toBe('3.0 MB');
    // The upload limit reads as it is set: 512 MiB.
    expect(formatBytes(512 * 1024 * 1024)).toBe('512 MB');
    expect(formatBytes(2 * 1024 ** 3)).toBe('2.0 GB');
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
