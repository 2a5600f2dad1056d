export { CATALOG_PLANS, type PlanDoc } from './catalogProjection.ts';
export { intervalWords } from './domain/intervalWords.ts';
export { loadProductByKey, loadProductByRef } from './productCommands.ts';
// What a checkout reads of a plan when a session is created (its type and intervals), from the log.
export { productDecider, productStream } from './domain/product.ts';
export { productIdOfRouteKey } from './productManagement.ts';
export { productResource } from './resources.ts';
export { CATALOG_PRODUCTS, catalogProjection, type ProductDoc } from './catalogProjection.ts';
export { Product } from './http/catalogSchemas.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export { ManagedProduct as ManagedProductSchema } from './http/catalogSchemas.ts';
export type { Plan } from './domain/product.ts';
