import { oauthProjection } from './oauthProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const oauthModule: FeatureModule = {
  name: 'oauth',
  projections: [oauthProjection],
  routes: async () => [(await import('./http/oauthRoutes.ts')).oauthRoutes],
  manageRoutes: async () => [(await import('./http/oauthAppRoutes.ts')).oauthAppRoutes],
  jobs: async () => [(await import('./jobs/oauthRecordsSweep.ts')).oauthRecordsSweepJob],
  importSections: [],
};
