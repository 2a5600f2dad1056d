import { automationJob } from '../automation/workflowRunner.ts';
import { automationRoutes } from '../api/routes/automation/automationRoutes.ts';
import { catchRoute } from '../api/routes/automation/catchRoute.ts';
import { automationManageRoutes } from '../api/routes/manage/automationManageRoutes.ts';
import { webhookEndpointManageRoutes, webhookEndpointRoutes } from '../api/routes/webhooks/webhookEndpointRoutes.ts';
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
import { eventTriggerJob } from '../webhooks/eventTriggerJob.ts';
import { webhooksJob } from '../webhooks/webhookJob.ts';

// Automation and event webhooks still live in the layer folders; these two entries gather them.
const automationModule: FeatureModule = {
  name: 'automation',
  projections: [automationProjection],
  routes: [catchRoute, automationRoutes],
  manageRoutes: [automationManageRoutes],
  jobs: [automationJob],
  importSections: [promosSection as ImportSection, sequencesSection as ImportSection],
};

const webhooksModule: FeatureModule = {
  name: 'webhooks',
  projections: [webhookProjection],
  routes: [webhookEndpointRoutes],
  manageRoutes: [webhookEndpointManageRoutes],
  jobs: [webhooksJob, eventTriggerJob],
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
