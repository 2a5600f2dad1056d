import { identityProjection } from './identityProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const identityModule: FeatureModule = {
  name: 'identity',
  projections: [identityProjection],
  routes: async () => [(await import('./http/identityRoutes.ts')).identityRoutes, (await import('./http/logoRoutes.ts')).logoRoutes],
  manageRoutes: async () => [(await import('./http/accountRoutes.ts')).accountRoutes, (await import('./http/organizationRoutes.ts')).organizationRoutes, (await import('./http/passkeyRoutes.ts')).passkeyRoutes],
  jobs: async () => [(await import('./jobs/apiKeyRevocation.ts')).apiKeyRevocationJob, (await import('./jobs/membershipAcceptance.ts')).membershipAcceptanceJob],
  importSections: [],
};
