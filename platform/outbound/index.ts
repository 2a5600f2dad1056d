export { type BlockReason, classifyAddress } from './addressClassifier.ts';
