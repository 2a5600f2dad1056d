import { eventLogProjection } from './eventLogProjection.ts';
import { salesStatsProjection } from './salesStatsProjection.ts';
import { eventLogRoutes } from './http/eventLogRoutes.ts';
import { salesStatsRoutes } from './http/salesStatsRoutes.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const reportingModule: FeatureModule = {
  name: 'reporting',
  projections: [eventLogProjection, salesStatsProjection],
  routes: [],
  manageRoutes: [eventLogRoutes, salesStatsRoutes],
  jobs: [],
  importSections: [],
};
