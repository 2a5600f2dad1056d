import { benefitsSection } from './benefitImport.ts';
import { benefitProjection } from './benefitProjection.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const benefitsModule: FeatureModule = {
  name: 'benefits',
  projections: [benefitProjection],
  routes: async () => [(await import('./http/benefitRoutes.ts')).benefitRoutes],
  manageRoutes: async () => [(await import('./http/benefitRoutes.ts')).benefitManageRoutes],
  jobs: async () => [(await import('./jobs/benefitGrants.ts')).benefitGrantsJob],
  importSections: [benefitsSection as ImportSection],
};
