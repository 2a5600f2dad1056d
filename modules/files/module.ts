import { fileProjection } from './fileProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const filesModule: FeatureModule = {
  name: 'files',
  projections: [fileProjection],
  routes: async () => [],
  manageRoutes: async () => [],
  jobs: async () => [],
  importSections: [],
};
