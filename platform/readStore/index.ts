export { type Filter, type Range, type ReadStore } from './readStore.ts';
