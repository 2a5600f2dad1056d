export { type Doc, type Filter, type Query, type Range, type ReadStore } from './readStore.ts';
