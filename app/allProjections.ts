import type { Projection } from '../platform/es/projection.ts';
import { modules } from './modules.ts';

/** Every read model, in the order a rebuild runs them. */
export const allProjections: readonly Projection[] = modules.flatMap((m) => m.projections);
