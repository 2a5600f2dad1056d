import { automationProjection } from './automationProjection.ts';
import { promosSection, sequencesSection } from './automationImport.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const automationModule: FeatureModule = {
  name: 'automation',
  projections: [automationProjection],
  routes: async () => [(await import('./http/catchRoute.ts')).catchRoute, (await import('./http/automationRoutes.ts')).automationRoutes],
  manageRoutes: async () => [(await import('./http/automationManageRoutes.ts')).automationManageRoutes],
  jobs: async () => [(await import('./jobs/workflowRunner.ts')).automationJob],
  importSections: [promosSection as ImportSection, sequencesSection as ImportSection],
};
