export { CATALOG_PLANS, type PlanDoc } from './catalogProjection.ts';
export { intervalWords } from './domain/intervalWords.ts';
export { loadProductByKey, loadProductByRef } from './productCommands.ts';
export { productResource } from './resources.ts';
export { CATALOG_PRODUCTS, catalogProjection, type ProductDoc } from './catalogProjection.ts';
export { Product } from './http/catalogSchemas.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export { ManagedProduct as ManagedProductSchema } from './http/catalogSchemas.ts';
export type { Plan } from './domain/product.ts';
