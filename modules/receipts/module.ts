import { receiptProjection } from './receiptProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const receiptsModule: FeatureModule = {
  name: 'receipts',
  projections: [receiptProjection],
  routes: async () => [(await import('./http/receiptRoutes.ts')).receiptRoutes],
  manageRoutes: async () => [(await import('./http/smtpRoutes.ts')).smtpRoutes],
  jobs: async () => [(await import('./jobs/receiptOutbox.ts')).receiptOutboxJob],
  importSections: [],
};
