import { benefitProjection } from './benefitProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const benefitsModule: FeatureModule = {
  name: 'benefits',
  projections: [benefitProjection],
  routes: async () => [],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
