export { CATALOG_PLANS, type PlanDoc } from './catalogProjection.ts';
export { intervalWords } from './domain/intervalWords.ts';
export { loadProductByKey } from './productCommands.ts';
export { productResource } from './resources.ts';
