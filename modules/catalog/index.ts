export { CATALOG_PLANS, type PlanDoc } from './catalogProjection.ts';
export { intervalWords } from './domain/intervalWords.ts';
export { loadProductByKey } from './productCommands.ts';
export { productResource } from './resources.ts';
export { CATALOG_PRODUCTS, catalogProjection, type ProductDoc } from './catalogProjection.ts';
export { Product } from './http/catalogSchemas.ts';
