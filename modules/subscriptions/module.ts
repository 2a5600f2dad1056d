import { testClockProjection } from './testClockProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [testClockProjection],
  routes: async () => [(await import('./http/testClockRoutes.ts')).testClockRoutes],
  manageRoutes: async () => [],
  jobs: async () => [(await import('./jobs/testClockAdvance.ts')).testClockAdvanceJob],
  importSections: [],
};
