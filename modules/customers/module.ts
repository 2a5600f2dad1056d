import { customerProjection } from './customerProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const customersModule: FeatureModule = {
  name: 'customers',
  projections: [customerProjection],
  routes: async () => [(await import('./http/customerRoutes.ts')).customerRoutes],
  manageRoutes: async () => [(await import('./http/customerRoutes.ts')).customerManageRoutes],
  jobs: async () => [],
  importSections: [],
};
