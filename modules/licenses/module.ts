import type { FeatureModule } from '../../platform/runtime/index.ts';
import { licenseKeyProjection } from './licenseKeyProjection.ts';

export const licensesModule: FeatureModule = {
  name: 'licenses',
  projections: [licenseKeyProjection],
  routes: async () => {
    const [publicRoutes, sellerRoutes] = await Promise.all([import('./http/licensePublicRoutes.ts'), import('./http/licenseKeyRoutes.ts')]);
    return [publicRoutes.licensePublicRoutes, sellerRoutes.licenseKeyRoutes];
  },
  manageRoutes: async () => [(await import('./http/licenseKeyRoutes.ts')).licenseKeyManageRoutes],
  jobs: async () => [(await import('./jobs/licenseKeyIssuer.ts')).licenseKeyIssuerJob],
  importSections: [],
};
