import { eventLogProjection } from './eventLogProjection.ts';
import { salesStatsProjection } from './salesStatsProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const reportingModule: FeatureModule = {
  name: 'reporting',
  projections: [eventLogProjection, salesStatsProjection],
  routes: async () => [],
  manageRoutes: async () => [(await import('./http/eventLogRoutes.ts')).eventLogRoutes, (await import('./http/salesStatsRoutes.ts')).salesStatsRoutes],
  jobs: async () => [],
  importSections: [],
};
