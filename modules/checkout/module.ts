import { checkoutProjection } from './checkoutProjection.ts';
import { checkoutRoutes } from './http/checkoutRoutes.ts';
import { hostedCheckoutRoutes } from './http/hostedCheckout/hostedCheckoutRoutes.ts';
import { checkoutManageRoutes } from './http/checkoutManageRoutes.ts';
import { offerPreviewRoutes } from './http/offerPreviewRoutes.ts';
import { offerRoutes } from './http/offerRoutes.ts';
import { checkoutSessionExpiryJob } from './jobs/checkoutSessionExpiry.ts';
import { checkoutCompletionJob } from './jobs/checkoutCompletion.ts';
import { offersSection } from './offerImport.ts';
import type { ImportSection } from '../../platform/import/importSection.ts';
import type { FeatureModule } from '../../platform/runtime/featureModule.ts';

export const checkoutModule: FeatureModule = {
  name: 'checkout',
  projections: [checkoutProjection],
  routes: [checkoutRoutes, hostedCheckoutRoutes],
  manageRoutes: [checkoutManageRoutes, offerPreviewRoutes, offerRoutes],
  jobs: [checkoutSessionExpiryJob, checkoutCompletionJob],
  importSections: [offersSection as ImportSection],
};
