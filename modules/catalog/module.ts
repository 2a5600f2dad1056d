import { catalogProjection } from './catalogProjection.ts';
import { catalogFacetsProjection } from './catalogFacetsProjection.ts';
import { familiesSection, productsSection } from './catalogImport.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const catalogModule: FeatureModule = {
  name: 'catalog',
  projections: [catalogProjection, catalogFacetsProjection],
  routes: async () => [(await import('./http/catalogRoutes.ts')).catalogRoutes],
  manageRoutes: async () => [(await import('./http/productRoutes.ts')).productRoutes, (await import('./http/catalogFacetRoutes.ts')).catalogFacetRoutes],
  jobs: async () => [],
  importSections: [familiesSection as ImportSection, productsSection as ImportSection],
};
