import { billingScheduleProjection } from './billingSchedule.ts';
import { testClockProjection } from './testClockProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const subscriptionsModule: FeatureModule = {
  name: 'subscriptions',
  projections: [billingScheduleProjection, testClockProjection],
  routes: async () => [(await import('./http/testClockRoutes.ts')).testClockRoutes],
  manageRoutes: async () => [],
  jobs: async () => [
    (await import('./jobs/subscriptionCreation.ts')).subscriptionCreationJob,
    (await import('./jobs/renewals.ts')).renewalsJob,
    (await import('./jobs/invoiceMirror.ts')).invoiceMirrorJob,
    (await import('./jobs/testClockAdvance.ts')).testClockAdvanceJob,
  ],
  importSections: [],
};
