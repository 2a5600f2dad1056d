import type { FeatureModule } from '../../platform/runtime/index.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [],
  routes: async () => [],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
