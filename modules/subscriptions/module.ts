import { billingScheduleProjection } from './billingSchedule.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [billingScheduleProjection],
  routes: async () => [
    (await import('./http/hostedBilling/billingPageRoutes.ts')).billingPageRoutes,
    (await import('./http/subscriptionSettingsRoutes.ts')).subscriptionSettingsRoutes,
  ],
  manageRoutes: async () => [(await import('./http/subscriptionSettingsRoutes.ts')).subscriptionSettingsManageRoutes],
  jobs: async () => [
    (await import('./jobs/subscriptionCreation.ts')).subscriptionCreationJob,
    (await import('./jobs/renewals.ts')).renewalsJob,
    (await import('./jobs/dunningEmails.ts')).dunningEmailsJob,
  ],
  importSections: [],
};
