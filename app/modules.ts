import { promosSection, sequencesSection } from '../commands/automation/automationImport.ts';
import { catalogModule } from '../modules/catalog/module.ts';
import { checkoutModule } from '../modules/checkout/module.ts';
import { identityModule } from '../modules/identity/module.ts';
import { oauthModule } from '../modules/oauth/module.ts';
import { paymentsModule } from '../modules/payments/module.ts';
import { promosModule } from '../modules/promos/module.ts';
import { receiptsModule } from '../modules/receipts/module.ts';
import { reportingModule } from '../modules/reporting/module.ts';
import type { ImportSection } from '../platform/import/importSection.ts';
import type { FeatureModule } from '../platform/runtime/featureModule.ts';
import { automationProjection } from '../projections/automation/automationProjection.ts';
import { webhookProjection } from '../projections/webhooks/webhookProjection.ts';

// Automation and event webhooks still live in the layer folders; these two entries gather them.
const automationModule: FeatureModule = {
  name: 'automation',
  projections: [automationProjection],
  routes: async () => [(await import('../api/routes/automation/catchRoute.ts')).catchRoute, (await import('../api/routes/automation/automationRoutes.ts')).automationRoutes],
  manageRoutes: async () => [(await import('../api/routes/manage/automationManageRoutes.ts')).automationManageRoutes],
  jobs: async () => [(await import('../automation/workflowRunner.ts')).automationJob],
  importSections: [promosSection as ImportSection, sequencesSection as ImportSection],
};

const webhooksModule: FeatureModule = {
  name: 'webhooks',
  projections: [webhookProjection],
  routes: async () => [(await import('../api/routes/webhooks/webhookEndpointRoutes.ts')).webhookEndpointRoutes],
  manageRoutes: async () => [(await import('../api/routes/webhooks/webhookEndpointRoutes.ts')).webhookEndpointManageRoutes],
  jobs: async () => [(await import('../webhooks/webhookJob.ts')).webhooksJob, (await import('../webhooks/eventTriggerJob.ts')).eventTriggerJob],
  importSections: [],
};

/**
 * Every feature of the service, the one list: projections, routes, jobs and import sections are
 * all read from it. Import sections apply in this order, so a module comes after those it refers to.
 */
export const modules: readonly FeatureModule[] = [
  identityModule,
  catalogModule,
  checkoutModule,
  automationModule,
  promosModule,
  webhooksModule,
  receiptsModule,
  reportingModule,
  oauthModule,
  paymentsModule,
];
