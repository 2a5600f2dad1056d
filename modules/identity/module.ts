import { identityProjection } from './identityProjection.ts';
import { identityRoutes } from './http/identityRoutes.ts';
import { accountRoutes } from './http/accountRoutes.ts';
import { organizationRoutes } from './http/organizationRoutes.ts';
import { passkeyRoutes } from './http/passkeyRoutes.ts';
import { apiKeyRevocationJob } from './jobs/apiKeyRevocation.ts';
import { membershipAcceptanceJob } from './jobs/membershipAcceptance.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const identityModule: FeatureModule = {
  name: 'identity',
  projections: [identityProjection],
  routes: [identityRoutes],
  manageRoutes: [accountRoutes, organizationRoutes, passkeyRoutes],
  jobs: [apiKeyRevocationJob, membershipAcceptanceJob],
  importSections: [],
};
