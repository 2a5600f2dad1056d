import type { FeatureModule } from '../../platform/runtime/index.ts';

export const paymentsModule: FeatureModule = {
  name: 'payments',
  projections: [],
  routes: async () => [(await import('./http/stripeWebhookRoute.ts')).stripeWebhookRoute],
  manageRoutes: async () => [(await import('./http/paymentRoutes.ts')).paymentRoutes],
  jobs: async () => [(await import('./jobs/voidInvoicePayments.ts')).voidInvoicePaymentsJob],
  importSections: [],
};
