import type { SessionMode } from '../checkout/index.ts';
import type { PaymentProvider } from './paymentProvider.ts';
import { testPaymentProvider } from './testPaymentProvider.ts';

/** The provider for a session's mode; null when that mode has none configured (live, in this build). */
export function paymentProviderFor(mode: SessionMode): PaymentProvider | null {
  return mode === 'test' ? testPaymentProvider : null;
}
