import type { FeatureModule } from '../../platform/runtime/index.ts';

export const portalModule: FeatureModule = {
  name: 'portal',
  projections: [],
  routes: async () => [(await import('./http/portalApiRoutes.ts')).portalApiRoutes, (await import('./http/portalPageRoutes.ts')).portalPageRoutes],
  manageRoutes: async () => [(await import('./http/portalApiRoutes.ts')).portalManageRoutes],
  jobs: async () => [],
  importSections: [],
};
