import type { FeatureModule } from '../../platform/runtime/index.ts';

export const deliveryModule: FeatureModule = {
  name: 'delivery',
  projections: [],
  routes: async () => [(await import('./http/deliveryRoutes.ts')).deliveryRoutes],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
