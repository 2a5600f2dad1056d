import { taxSection } from './taxImport.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const taxModule: FeatureModule = {
  name: 'tax',
  projections: [],
  routes: async () => [(await import('./http/taxRoutes.ts')).taxRoutes],
  manageRoutes: async () => [(await import('./http/taxRoutes.ts')).taxManageRoutes],
  jobs: async () => [],
  importSections: [taxSection as ImportSection],
};
