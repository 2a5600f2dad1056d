import { promoProjection } from './promoProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const promosModule: FeatureModule = {
  name: 'promos',
  projections: [promoProjection],
  routes: async () => [(await import('./http/promoRoutes.ts')).promoRoutes],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
