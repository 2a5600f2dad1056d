import { webhookProjection } from './webhookProjection.ts';
import type { FeatureModule } from '../../platform/runtime/index.ts';

export const webhooksModule: FeatureModule = {
  name: 'webhooks',
  projections: [webhookProjection],
  routes: async () => [(await import('./http/webhookEndpointRoutes.ts')).webhookEndpointRoutes],
  manageRoutes: async () => [(await import('./http/webhookEndpointRoutes.ts')).webhookEndpointManageRoutes],
  jobs: async () => [(await import('./jobs/webhookJob.ts')).webhooksJob, (await import('./jobs/eventTriggerJob.ts')).eventTriggerJob],
  importSections: [],
};
