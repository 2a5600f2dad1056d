import { couponsSection } from './couponImport.ts';
import { discountProjection } from './discountProjection.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const discountsModule: FeatureModule = {
  name: 'discounts',
  projections: [discountProjection],
  routes: async () => [(await import('./http/discountRoutes.ts')).discountRoutes],
  manageRoutes: async () => [(await import('./http/discountRoutes.ts')).discountManageRoutes],
  jobs: async () => [],
  importSections: [couponsSection as ImportSection],
};
