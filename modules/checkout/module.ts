import { checkoutProjection } from './checkoutProjection.ts';
import { offersSection } from './offerImport.ts';
import type { ImportSection } from '../../platform/import/index.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const checkoutModule: FeatureModule = {
  name: 'checkout',
  projections: [checkoutProjection],
  routes: async () => [(await import('./http/checkoutRoutes.ts')).checkoutRoutes, (await import('./http/hostedCheckout/hostedCheckoutRoutes.ts')).hostedCheckoutRoutes],
  manageRoutes: async () => [(await import('./http/checkoutManageRoutes.ts')).checkoutManageRoutes, (await import('./http/offerPreviewRoutes.ts')).offerPreviewRoutes, (await import('./http/offerRoutes.ts')).offerRoutes],
  jobs: async () => [(await import('./jobs/checkoutSessionExpiry.ts')).checkoutSessionExpiryJob, (await import('./jobs/checkoutCompletion.ts')).checkoutCompletionJob, (await import('./jobs/discountRedemptions.ts')).discountRedemptionsJob],
  importSections: [offersSection as ImportSection],
};
