export { type Doc, type Filter, type Range, type ReadStore } from './readStore.ts';
