import { fileProjection } from './fileProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const filesModule: FeatureModule = {
  name: 'files',
  projections: [fileProjection],
  routes: async () => {
    const [{ fileRoutes }, { downloadRoutes }] = await Promise.all([import('./http/fileRoutes.ts'), import('./http/downloadRoutes.ts')]);
    return [fileRoutes, downloadRoutes];
  },
  manageRoutes: async () => [(await import('./http/fileRoutes.ts')).fileManageRoutes],
  jobs: async () => [(await import('./jobs/sweepIncompleteUploads.ts')).sweepIncompleteUploads],
  importSections: [],
};
