import { automationModule } from '../modules/automation/module.ts';
import { benefitsModule } from '../modules/benefits/module.ts';
import { catalogModule } from '../modules/catalog/module.ts';
import { checkoutModule } from '../modules/checkout/module.ts';
import { creditNotesModule } from '../modules/creditNotes/module.ts';
import { customersModule } from '../modules/customers/module.ts';
import { deliveryModule } from '../modules/delivery/module.ts';
import { discountsModule } from '../modules/discounts/module.ts';
import { filesModule } from '../modules/files/module.ts';
import { identityModule } from '../modules/identity/module.ts';
import { licensesModule } from '../modules/licenses/module.ts';
import { oauthModule } from '../modules/oauth/module.ts';
import { paymentsModule } from '../modules/payments/module.ts';
import { portalModule } from '../modules/portal/module.ts';
import { promosModule } from '../modules/promos/module.ts';
import { receiptsModule } from '../modules/receipts/module.ts';
import { reportingModule } from '../modules/reporting/module.ts';
import { subscriptionsModule } from '../modules/subscriptions/module.ts';
import { taxModule } from '../modules/tax/module.ts';
import { webhooksModule } from '../modules/webhooks/module.ts';
import type { FeatureModule } from '../platform/runtime/featureModule.ts';

/**
 * Every feature of the service, the one list: projections, routes, jobs and import sections are
 * all read from it. Import sections apply in this order, so a module comes after those it refers to.
 */
export const modules: readonly FeatureModule[] = [
  identityModule,
  catalogModule,
  taxModule,
  checkoutModule,
  subscriptionsModule,
  automationModule,
  promosModule,
  webhooksModule,
  receiptsModule,
  reportingModule,
  oauthModule,
  paymentsModule,
  creditNotesModule,
  customersModule,
  discountsModule,
  benefitsModule,
  portalModule,
  filesModule,
  licensesModule,
  deliveryModule,
];
