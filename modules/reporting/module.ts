import { eventLogProjection } from './eventLogProjection.ts';
import { salesStatsProjection } from './salesStatsProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const reportingModule: FeatureModule = {
  name: 'reporting',
  projections: [eventLogProjection, salesStatsProjection],
  routes: async () => [(await import('./http/exportRoutes.ts')).exportRoutes],
  manageRoutes: async () => [(await import('./http/eventLogRoutes.ts')).eventLogRoutes, (await import('./http/salesStatsRoutes.ts')).salesStatsRoutes, (await import('./http/exportRoutes.ts')).exportManageRoutes],
  jobs: async () => [],
  importSections: [],
};
