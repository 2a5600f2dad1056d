import { catalogProjection } from './catalogProjection.ts';
import { catalogFacetsProjection } from './catalogFacetsProjection.ts';
import { catalogRoutes } from './http/catalogRoutes.ts';
import { productRoutes } from './http/productRoutes.ts';
import { catalogFacetRoutes } from './http/catalogFacetRoutes.ts';
import { familiesSection, productsSection } from './catalogImport.ts';
import type { ImportSection } from '../../platform/import/importSection.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const catalogModule: FeatureModule = {
  name: 'catalog',
  projections: [catalogProjection, catalogFacetsProjection],
  routes: [catalogRoutes],
  manageRoutes: [productRoutes, catalogFacetRoutes],
  jobs: [],
  importSections: [familiesSection as ImportSection, productsSection as ImportSection],
};
