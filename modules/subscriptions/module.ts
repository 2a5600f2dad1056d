import type { FeatureModule } from '../../platform/runtime/index.ts';
import { subscriptionProjection } from './subscriptionProjection.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [subscriptionProjection],
  routes: async () => [(await import('./http/subscriptionRoutes.ts')).subscriptionRoutes],
  manageRoutes: async () => [(await import('./http/subscriptionRoutes.ts')).subscriptionManageRoutes],
  jobs: async () => [],
  importSections: [],
};
