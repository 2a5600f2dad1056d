import { receiptProjection } from './receiptProjection.ts';
import { receiptRoutes } from './http/receiptRoutes.ts';
import { receiptOutboxJob } from './jobs/receiptOutbox.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const receiptsModule: FeatureModule = {
  name: 'receipts',
  projections: [receiptProjection],
  routes: [receiptRoutes],
  manageRoutes: [],
  jobs: [receiptOutboxJob],
  importSections: [],
};
