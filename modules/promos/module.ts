import { promoProjection } from './promoProjection.ts';
import { promoRoutes } from './http/promoRoutes.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const promosModule: FeatureModule = {
  name: 'promos',
  projections: [promoProjection],
  routes: [promoRoutes],
  manageRoutes: [],
  jobs: [],
  importSections: [],
};
