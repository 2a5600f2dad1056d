import type { FeatureModule } from '../../platform/runtime/index.ts';

export const taxModule: FeatureModule = {
  name: 'tax',
  projections: [],
  routes: async () => [],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
