import { eventLogProjection } from './eventLogProjection.ts';
import { salesStatsProjection } from './salesStatsProjection.ts';
import { taxReportProjection } from './taxReportProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const reportingModule: FeatureModule = {
  name: 'reporting',
  projections: [eventLogProjection, salesStatsProjection, taxReportProjection],
  routes: async () => [(await import('./http/exportRoutes.ts')).exportRoutes, (await import('./http/taxReportRoutes.ts')).taxReportRoutes],
  manageRoutes: async () => [(await import('./http/eventLogRoutes.ts')).eventLogRoutes, (await import('./http/salesStatsRoutes.ts')).salesStatsRoutes, (await import('./http/exportRoutes.ts')).exportManageRoutes, (await import('./http/taxReportRoutes.ts')).taxReportManageRoutes],
  jobs: async () => [],
  importSections: [],
};
