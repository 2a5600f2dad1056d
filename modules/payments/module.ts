import type { FeatureModule } from '../../platform/runtime/index.ts';

export const paymentsModule: FeatureModule = {
  name: 'payments',
  projections: [],
  routes: async () => [(await import('./http/stripeWebhookRoute.ts')).stripeWebhookRoute, (await import('./http/refundRoutes.ts')).refundRoutes],
  manageRoutes: async () => [(await import('./http/paymentRoutes.ts')).paymentRoutes],
  jobs: async () => [(await import('./jobs/voidInvoicePayments.ts')).voidInvoicePaymentsJob],
  importSections: [],
};
