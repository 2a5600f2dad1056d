import { oauthProjection } from './oauthProjection.ts';
import { oauthRoutes } from './http/oauthRoutes.ts';
import { oauthAppRoutes } from './http/oauthAppRoutes.ts';
import { oauthRecordsSweepJob } from './jobs/oauthRecordsSweep.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const oauthModule: FeatureModule = {
  name: 'oauth',
  projections: [oauthProjection],
  routes: [oauthRoutes],
  manageRoutes: [oauthAppRoutes],
  jobs: [oauthRecordsSweepJob],
  importSections: [],
};
