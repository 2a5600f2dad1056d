import { stripeWebhookRoute } from './http/stripeWebhookRoute.ts';
import { paymentRoutes } from './http/paymentRoutes.ts';
import { voidInvoicePaymentsJob } from './jobs/voidInvoicePayments.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const paymentsModule: FeatureModule = {
  name: 'payments',
  projections: [],
  routes: [stripeWebhookRoute],
  manageRoutes: [paymentRoutes],
  jobs: [voidInvoicePaymentsJob],
  importSections: [],
};
