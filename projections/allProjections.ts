import { checkoutProjection } from './checkout/checkoutProjection.ts';
import { identityProjection } from './identity/identityProjection.ts';
import type { Projection } from './projection.ts';

/** Every read model, in the order a rebuild runs them. */
export const allProjections: readonly Projection[] = [identityProjection, checkoutProjection];
