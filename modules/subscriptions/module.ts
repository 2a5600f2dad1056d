import { subscriptionProjection } from './subscriptionProjection.ts';
import { testClockProjection } from './testClockProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [subscriptionProjection, testClockProjection],
  routes: async () => [
    (await import('./http/subscriptionRoutes.ts')).subscriptionRoutes,
    (await import('./http/testClockRoutes.ts')).testClockRoutes,
    (await import('./http/hostedBilling/billingPageRoutes.ts')).billingPageRoutes,
    (await import('./http/subscriptionSettingsRoutes.ts')).subscriptionSettingsRoutes,
  ],
  manageRoutes: async () => [
    (await import('./http/subscriptionRoutes.ts')).subscriptionManageRoutes,
    (await import('./http/subscriptionSettingsRoutes.ts')).subscriptionSettingsManageRoutes,
    (await import('./http/testClockRoutes.ts')).testClockManageRoutes,
  ],
  jobs: async () => [
    (await import('./jobs/subscriptionCreation.ts')).subscriptionCreationJob,
    (await import('./jobs/renewals.ts')).renewalsJob,
    (await import('./jobs/invoiceMirror.ts')).invoiceMirrorJob,
    (await import('./jobs/testClockAdvance.ts')).testClockAdvanceJob,
    (await import('./jobs/dunningEmails.ts')).dunningEmailsJob,
    (await import('./jobs/cancelRefunds.ts')).cancelRefundsJob,
  ],
  importSections: [],
};
