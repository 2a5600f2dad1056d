#!/usr/bin/env node
// Rewrites relative import specifiers after the layer moves of issue 16 (old path → new path).
// Re-runnable: a specifier is touched only when it no longer resolves, so running it after
// merging a branch that still imports the old paths fixes just that branch's files.
//   node scripts/rewriteImports.mjs          rewrite in place, list the files changed
//   node scripts/rewriteImports.mjs --check  list what would change, exit 1 if anything would
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Repository-relative paths: where each module was, and where it lives now. */
export const MOVES = {
  // The event store port and its adapters, reached by commands/ and projections/ alike.
  'commands/eventStore.ts': 'platform/eventStore/eventStore.ts',
  'commands/appendOneByOne.ts': 'platform/eventStore/appendOneByOne.ts',
  'commands/copyEvents.ts': 'platform/eventStore/copyEvents.ts',
  'commands/sqlite/sqliteEventStore.ts': 'platform/eventStore/sqlite/sqliteEventStore.ts',
  'commands/esdb/esdbEventStore.ts': 'platform/eventStore/esdb/esdbEventStore.ts',
  'commands/esdb/esdbMapping.ts': 'platform/eventStore/esdb/esdbMapping.ts',
  // The read store port and its adapters.
  'projections/readStore.ts': 'platform/readStore/readStore.ts',
  'projections/sqlite/sqliteReadStore.ts': 'platform/readStore/sqlite/sqliteReadStore.ts',
  'projections/mongodb/mongoReadStore.ts': 'platform/readStore/mongodb/mongoReadStore.ts',
  'projections/mongodb/mongoMapping.ts': 'platform/readStore/mongodb/mongoMapping.ts',
  // SQLite plumbing both SQLite adapters (and backups) open files through.
  'commands/sqlite/openDatabase.ts': 'platform/sqlite/openDatabase.ts',
  'commands/sqlite/backupDataDir.ts': 'platform/sqlite/backupDataDir.ts',
  // Helpers with no domain rules in them, used across layers.
  'domain/shared/deepFreeze.ts': 'platform/lib/deepFreeze.ts',
  'domain/shared/generations.ts': 'platform/lib/generations.ts',
  'commands/routeKeys.ts': 'platform/lib/routeKeys.ts',
  'commands/checkout/offerRef.ts': 'platform/lib/offerRef.ts',
  // Tests mirror the tree.
  'test/esdb/esdbEventStore.unit.test.ts': 'test/eventStore/esdb/esdbEventStore.unit.test.ts',
  'test/esdb/esdbMapping.unit.test.ts': 'test/eventStore/esdb/esdbMapping.unit.test.ts',
  'test/mongodb/mongoMapping.unit.test.ts': 'test/readStore/mongodb/mongoMapping.unit.test.ts',
  'test/mongodb/mongoReadStore.unit.test.ts': 'test/readStore/mongodb/mongoReadStore.unit.test.ts',
  // Issue 36: the shared base into platform/, each feature into modules/<feature>/.
  'api/app.ts': 'app/httpApp.ts',
  'api/context.ts': 'platform/http/context.ts',
  'api/errors.ts': 'platform/http/errors.ts',
  'api/jsonDepth.ts': 'platform/http/jsonDepth.ts',
  'api/pagination.ts': 'platform/http/pagination.ts',
  'api/plugins/auth.ts': 'modules/oauth/http/auth.ts',
  'api/plugins/bearerRole.ts': 'modules/oauth/http/bearerRole.ts',
  'api/plugins/jsonErrors.ts': 'platform/http/plugins/jsonErrors.ts',
  'api/plugins/monotonicRateLimitStore.ts': 'platform/http/plugins/monotonicRateLimitStore.ts',
  'api/plugins/oauthBearer.ts': 'modules/oauth/http/oauthBearer.ts',
  'api/plugins/observability.ts': 'app/observability.ts',
  'api/plugins/readYourWrites.ts': 'platform/http/plugins/readYourWrites.ts',
  'api/plugins/securityHeaders.ts': 'platform/http/plugins/securityHeaders.ts',
  'api/plugins/sessionAuth.ts': 'modules/identity/http/sessionAuth.ts',
  'api/quietConnectionsOnClose.ts': 'platform/http/quietConnectionsOnClose.ts',
  'api/redactUrl.ts': 'platform/http/redactUrl.ts',
  'api/responseHeaders.ts': 'platform/http/responseHeaders.ts',
  'api/routes/catalog/catalogRoutes.ts': 'modules/catalog/http/catalogRoutes.ts',
  'api/routes/catalog/catalogSchemas.ts': 'modules/catalog/http/catalogSchemas.ts',
  'api/routes/catalog/productPageCache.ts': 'modules/catalog/http/productPageCache.ts',
  'api/routes/checkout/checkoutAdminRoutes.ts': 'modules/checkout/http/checkoutAdminRoutes.ts',
  'api/routes/checkout/checkoutPublicRoutes.ts': 'modules/checkout/http/checkoutPublicRoutes.ts',
  'api/routes/checkout/checkoutRoutes.ts': 'modules/checkout/http/checkoutRoutes.ts',
  'api/routes/checkout/checkoutSchemas.ts': 'modules/checkout/http/checkoutSchemas.ts',
  'api/routes/checkout/sessionResource.ts': 'modules/checkout/resources.ts',
  'api/routes/dashboard/dashboardAssets.ts': 'platform/http/dashboard/dashboardAssets.ts',
  'api/routes/dashboard/dashboardRoutes.ts': 'platform/http/dashboard/dashboardRoutes.ts',
  'api/routes/docs.ts': 'app/docsRoutes.ts',
  'api/routes/hostedCheckout/examplePage.ts': 'modules/checkout/http/hostedCheckout/examplePage.ts',
  'api/routes/hostedCheckout/hostedCheckoutRoutes.ts': 'modules/checkout/http/hostedCheckout/hostedCheckoutRoutes.ts',
  'api/routes/hostedCheckout/html.ts': 'platform/http/html.ts',
  'api/routes/hostedCheckout/renderCheckoutPage.ts': 'modules/checkout/http/hostedCheckout/renderCheckoutPage.ts',
  'api/routes/hostedCheckout/sdkAssets.ts': 'platform/http/sdkAssets.ts',
  'api/routes/identity/identityRoutes.ts': 'modules/identity/http/identityRoutes.ts',
  'api/routes/manage/accountRoutes.ts': 'modules/identity/http/accountRoutes.ts',
  'api/routes/manage/catalogFacetRoutes.ts': 'modules/catalog/http/catalogFacetRoutes.ts',
  'api/routes/manage/checkoutManageRoutes.ts': 'modules/checkout/http/checkoutManageRoutes.ts',
  'api/routes/manage/eventLogRoutes.ts': 'modules/reporting/http/eventLogRoutes.ts',
  'api/routes/manage/manageContext.ts': 'platform/http/manage/manageContext.ts',
  'api/routes/manage/managePaging.ts': 'platform/http/manage/managePaging.ts',
  'api/routes/manage/manageRoutes.ts': 'app/manageRoutes.ts',
  'api/routes/manage/manageSchemas.ts': 'platform/http/manage/manageSchemas.ts',
  'api/routes/manage/oauthAppRoutes.ts': 'modules/oauth/http/oauthAppRoutes.ts',
  'api/routes/manage/offerPreviewDrafts.ts': 'modules/checkout/http/offerPreviewDrafts.ts',
  'api/routes/manage/offerPreviewRoutes.ts': 'modules/checkout/http/offerPreviewRoutes.ts',
  'api/routes/manage/offerRoutes.ts': 'modules/checkout/http/offerRoutes.ts',
  'api/routes/manage/organizationRoutes.ts': 'modules/identity/http/organizationRoutes.ts',
  'api/routes/manage/passkeyRoutes.ts': 'modules/identity/http/passkeyRoutes.ts',
  'api/routes/manage/paymentRoutes.ts': 'modules/payments/http/paymentRoutes.ts',
  'api/routes/manage/productRoutes.ts': 'modules/catalog/http/productRoutes.ts',
  'api/routes/manage/salesStatsRoutes.ts': 'modules/reporting/http/salesStatsRoutes.ts',
  'api/routes/manage/webauthn.ts': 'modules/identity/http/webauthn.ts',
  'api/routes/oauth/consentPage.ts': 'modules/oauth/http/consentPage.ts',
  'api/routes/oauth/oauthProvider.ts': 'modules/oauth/http/oauthProvider.ts',
  'api/routes/oauth/oauthRoutes.ts': 'modules/oauth/http/oauthRoutes.ts',
  'api/routes/oauth/oidcStorage.ts': 'modules/oauth/http/oidcStorage.ts',
  'api/routes/payments/stripeWebhookRoute.ts': 'modules/payments/http/stripeWebhookRoute.ts',
  'api/routes/promos/promoRoutes.ts': 'modules/promos/http/promoRoutes.ts',
  'api/routes/receipts/receiptPdf.ts': 'modules/receipts/http/receiptPdf.ts',
  'api/routes/receipts/receiptRoutes.ts': 'modules/receipts/http/receiptRoutes.ts',
  'api/routes/schemas.ts': 'platform/http/schemas.ts',
  'api/validateHeadersInPlace.ts': 'platform/http/validateHeadersInPlace.ts',
  'api/validationMessages.ts': 'platform/http/validationMessages.ts',
  'app/config.ts': 'platform/runtime/config.ts',
  'app/eventStoreUrl.ts': 'platform/runtime/eventStoreUrl.ts',
  'app/httpRequestMetrics.ts': 'platform/runtime/httpRequestMetrics.ts',
  'app/jobs/apiKeyRevocation.ts': 'modules/identity/jobs/apiKeyRevocation.ts',
  'app/jobs/checkoutCompletion.ts': 'modules/checkout/jobs/checkoutCompletion.ts',
  'app/jobs/checkoutSessionExpiry.ts': 'modules/checkout/jobs/checkoutSessionExpiry.ts',
  'app/jobs/intervalJob.ts': 'platform/runtime/intervalJob.ts',
  'app/jobs/membershipAcceptance.ts': 'modules/identity/jobs/membershipAcceptance.ts',
  'app/jobs/oauthRecordsSweep.ts': 'modules/oauth/jobs/oauthRecordsSweep.ts',
  'app/jobs/voidInvoicePayments.ts': 'modules/payments/jobs/voidInvoicePayments.ts',
  'app/leasedWork.ts': 'platform/runtime/leasedWork.ts',
  'app/metrics.ts': 'platform/runtime/metrics.ts',
  'app/observedEventStore.ts': 'platform/runtime/observedEventStore.ts',
  'app/readiness.ts': 'platform/runtime/readiness.ts',
  'app/receipts/noticeOutbox.ts': 'modules/receipts/jobs/noticeOutbox.ts',
  'app/receipts/receiptOutbox.ts': 'modules/receipts/jobs/receiptOutbox.ts',
  'app/receipts/smtpMailer.ts': 'modules/receipts/smtpMailer.ts',
  'app/serverUrlFile.ts': 'platform/runtime/serverUrlFile.ts',
  'app/services.ts': 'platform/runtime/services.ts',
  'app/stripeCredentialStore.ts': 'modules/payments/stripeCredentialStore.ts',
  'commands/catalog/catalogImport.ts': 'modules/catalog/catalogImport.ts',
  'commands/catalog/productCommands.ts': 'modules/catalog/productCommands.ts',
  'commands/catalog/productManagement.ts': 'modules/catalog/productManagement.ts',
  'commands/checkout/customerToken.ts': 'modules/checkout/customerToken.ts',
  'commands/checkout/idempotency.ts': 'modules/checkout/idempotency.ts',
  'commands/checkout/offerCommands.ts': 'modules/checkout/offerCommands.ts',
  'commands/checkout/offerImport.ts': 'modules/checkout/offerImport.ts',
  'commands/checkout/offerManagement.ts': 'modules/checkout/offerManagement.ts',
  'commands/checkout/redirectOrigins.ts': 'modules/checkout/redirectOrigins.ts',
  'commands/checkout/sessionCommands.ts': 'modules/checkout/sessionCommands.ts',
  'commands/checkout/sessionHistory.ts': 'modules/checkout/sessionHistory.ts',
  'commands/checkout/sessionSnapshot.ts': 'modules/checkout/sessionSnapshot.ts',
  'commands/handleCommand.ts': 'platform/es/handleCommand.ts',
  'commands/idAllocator.ts': 'platform/es/idAllocator.ts',
  'commands/identity/accountCommands.ts': 'modules/identity/accountCommands.ts',
  'commands/identity/accountSecrets.ts': 'modules/identity/accountSecrets.ts',
  'commands/identity/credentials.ts': 'modules/identity/credentials.ts',
  'commands/identity/identityCommands.ts': 'modules/identity/identityCommands.ts',
  'commands/identity/invitationCommands.ts': 'modules/identity/invitationCommands.ts',
  'commands/import/importFile.ts': 'app/import/importFile.ts',
  'commands/import/importIssueMessage.ts': 'platform/import/importIssueMessage.ts',
  'commands/import/importIssues.ts': 'platform/import/importIssues.ts',
  'commands/import/importSection.ts': 'platform/import/importSection.ts',
  'commands/import/importSections.ts': 'app/import/importSections.ts',
  'commands/minorUnits.ts': 'platform/lib/minorUnits.ts',
  'commands/oauth/oauthCommands.ts': 'modules/oauth/oauthCommands.ts',
  'commands/payments/livePayments.ts': 'modules/payments/livePayments.ts',
  'commands/payments/paymentProvider.ts': 'modules/payments/paymentProvider.ts',
  'commands/payments/paymentProviders.ts': 'modules/payments/paymentProviders.ts',
  'commands/payments/stripeAccountCommands.ts': 'modules/payments/stripeAccountCommands.ts',
  'commands/payments/stripeCredentialRecords.ts': 'modules/payments/stripeCredentialRecords.ts',
  'commands/payments/stripeProvider.ts': 'modules/payments/stripeProvider.ts',
  'commands/payments/testPaymentProvider.ts': 'modules/payments/testPaymentProvider.ts',
  'commands/promos/promoCommands.ts': 'modules/promos/promoCommands.ts',
  'commands/stagedAppends.ts': 'platform/es/stagedAppends.ts',
  'commands/timeOrderedUuid.ts': 'platform/es/timeOrderedUuid.ts',
  'domain/catalog/intervalWords.ts': 'modules/catalog/domain/intervalWords.ts',
  'domain/catalog/product.ts': 'modules/catalog/domain/product.ts',
  'domain/checkout/checkoutSession.ts': 'modules/checkout/domain/checkoutSession.ts',
  'domain/checkout/invoice.ts': 'modules/checkout/domain/invoice.ts',
  'domain/checkout/offer.ts': 'modules/checkout/domain/offer.ts',
  'domain/checkout/redirectUrls.ts': 'modules/checkout/domain/redirectUrls.ts',
  'domain/checkout/sessionView.ts': 'modules/checkout/domain/sessionView.ts',
  'domain/identity/apiKey.ts': 'modules/identity/domain/apiKey.ts',
  'domain/identity/bearerAccess.ts': 'modules/identity/domain/bearerAccess.ts',
  'domain/identity/membershipInvitation.ts': 'modules/identity/domain/membershipInvitation.ts',
  'domain/identity/organization.ts': 'modules/identity/domain/organization.ts',
  'domain/identity/user.ts': 'modules/identity/domain/user.ts',
  'domain/identity/userSession.ts': 'modules/identity/domain/userSession.ts',
  'domain/oauth/oauthApp.ts': 'modules/oauth/domain/oauthApp.ts',
  'domain/oauth/oauthGrant.ts': 'modules/oauth/domain/oauthGrant.ts',
  'domain/oauth/oauthScopes.ts': 'modules/oauth/domain/oauthScopes.ts',
  'domain/oauth/redirectUri.ts': 'modules/oauth/domain/redirectUri.ts',
  'domain/payments/stripeAccount.ts': 'modules/payments/domain/stripeAccount.ts',
  'domain/payments/stripeEvent.ts': 'modules/payments/domain/stripeEvent.ts',
  'domain/promos/pricing.ts': 'modules/promos/domain/pricing.ts',
  'domain/promos/promo.ts': 'modules/promos/domain/promo.ts',
  'domain/receipts/notice.ts': 'modules/receipts/domain/notice.ts',
  'domain/receipts/receipt.ts': 'modules/receipts/domain/receipt.ts',
  'domain/receipts/receiptMessage.ts': 'modules/receipts/domain/receiptMessage.ts',
  'domain/shared/decider.ts': 'platform/domain/decider.ts',
  'domain/shared/domainError.ts': 'platform/domain/domainError.ts',
  'domain/shared/money.ts': 'platform/domain/money.ts',
  'domain/shared/specification.ts': 'platform/domain/specification.ts',
  'eventStore/appendOneByOne.ts': 'platform/eventStore/appendOneByOne.ts',
  'eventStore/copyEvents.ts': 'platform/eventStore/copyEvents.ts',
  'eventStore/esdb/esdbEventStore.ts': 'platform/eventStore/esdb/esdbEventStore.ts',
  'eventStore/esdb/esdbMapping.ts': 'platform/eventStore/esdb/esdbMapping.ts',
  'eventStore/eventStore.ts': 'platform/eventStore/eventStore.ts',
  'eventStore/sqlite/sqliteEventStore.ts': 'platform/eventStore/sqlite/sqliteEventStore.ts',
  'eventStore/sqlite/walSync.ts': 'platform/eventStore/sqlite/walSync.ts',
  'lib/appendTracker.ts': 'platform/lib/appendTracker.ts',
  'lib/deepFreeze.ts': 'platform/lib/deepFreeze.ts',
  'lib/generations.ts': 'platform/lib/generations.ts',
  'lib/offerRef.ts': 'platform/lib/offerRef.ts',
  'lib/routeKeys.ts': 'platform/lib/routeKeys.ts',
  'lib/storeUnavailableError.ts': 'platform/lib/storeUnavailableError.ts',
  'lib/zonedDays.ts': 'modules/reporting/zonedDays.ts',
  'projections/allProjections.ts': 'app/allProjections.ts',
  'projections/assertCheckpointInLog.ts': 'platform/es/assertCheckpointInLog.ts',
  'projections/catalog/catalogFacetsProjection.ts': 'modules/catalog/catalogFacetsProjection.ts',
  'projections/catalog/catalogProjection.ts': 'modules/catalog/catalogProjection.ts',
  'projections/catalog/catalogQueries.ts': 'modules/catalog/catalogQueries.ts',
  'projections/checkout/checkoutProjection.ts': 'modules/checkout/checkoutProjection.ts',
  'projections/checkout/checkoutQueries.ts': 'modules/checkout/checkoutQueries.ts',
  'projections/checkpointWatcher.ts': 'platform/es/checkpointWatcher.ts',
  'projections/docCache.ts': 'platform/es/docCache.ts',
  'projections/eventLog/eventLogProjection.ts': 'modules/reporting/eventLogProjection.ts',
  'projections/followFromCheckpoint.ts': 'platform/es/followFromCheckpoint.ts',
  'projections/identity/identityProjection.ts': 'modules/identity/identityProjection.ts',
  'projections/oauth/oauthProjection.ts': 'modules/oauth/oauthProjection.ts',
  'projections/projection.ts': 'platform/es/projection.ts',
  'projections/projectionPositions.ts': 'platform/es/projectionPositions.ts',
  'projections/projectionRunner.ts': 'platform/es/projectionRunner.ts',
  'projections/projectionsAtHead.ts': 'platform/es/projectionsAtHead.ts',
  'projections/promos/promoProjection.ts': 'modules/promos/promoProjection.ts',
  'projections/promos/promoQueries.ts': 'modules/promos/promoQueries.ts',
  'projections/readModelGenerations.ts': 'platform/es/readModelGenerations.ts',
  'projections/receipts/receiptProjection.ts': 'modules/receipts/receiptProjection.ts',
  'projections/salesStats/salesStatsProjection.ts': 'modules/reporting/salesStatsProjection.ts',
  'projections/unitOfWork.ts': 'platform/es/unitOfWork.ts',
  'readStore/mongodb/mongoMapping.ts': 'platform/readStore/mongodb/mongoMapping.ts',
  'readStore/mongodb/mongoReadStore.ts': 'platform/readStore/mongodb/mongoReadStore.ts',
  'readStore/readStore.ts': 'platform/readStore/readStore.ts',
  'readStore/sqlite/sqliteReadStore.ts': 'platform/readStore/sqlite/sqliteReadStore.ts',
  'sqlite/backupDataDir.ts': 'platform/sqlite/backupDataDir.ts',
  'sqlite/openDatabase.ts': 'platform/sqlite/openDatabase.ts',
  // Issue 36: automation and event webhooks into modules/, the outbound guard into platform/.
  'commands/automation/automationCommands.ts': 'modules/automation/automationCommands.ts',
  'commands/automation/automationImport.ts': 'modules/automation/automationImport.ts',
  'commands/automation/automationKeys.ts': 'modules/automation/automationKeys.ts',
  'projections/automation/automationProjection.ts': 'modules/automation/automationProjection.ts',
  'domain/automation/actions.ts': 'modules/automation/domain/actions.ts',
  'domain/automation/enrolment.ts': 'modules/automation/domain/enrolment.ts',
  'domain/automation/eventScope.ts': 'modules/automation/domain/eventScope.ts',
  'domain/automation/sequence.ts': 'modules/automation/domain/sequence.ts',
  'domain/automation/template.ts': 'modules/automation/domain/template.ts',
  'domain/automation/trigger.ts': 'modules/automation/domain/trigger.ts',
  'domain/automation/webhookReception.ts': 'modules/automation/domain/webhookReception.ts',
  'domain/automation/workflow.ts': 'modules/automation/domain/workflow.ts',
  'api/routes/automation/anyHttpMethod.ts': 'modules/automation/http/anyHttpMethod.ts',
  'api/routes/manage/automationManageRoutes.ts': 'modules/automation/http/automationManageRoutes.ts',
  'api/routes/automation/automationRoutes.ts': 'modules/automation/http/automationRoutes.ts',
  'api/routes/automation/catchRoute.ts': 'modules/automation/http/catchRoute.ts',
  'automation/workflowRunner.ts': 'modules/automation/jobs/workflowRunner.ts',
  'commands/automation/receiveWebhook.ts': 'modules/automation/receiveWebhook.ts',
  'commands/automation/retryWorkflow.ts': 'modules/automation/retryWorkflow.ts',
  'automation/sendWebhook.ts': 'modules/automation/sendWebhook.ts',
  'commands/automation/sendWebhookSecrets.ts': 'modules/automation/sendWebhookSecrets.ts',
  'commands/automation/triggerSamples.ts': 'modules/automation/triggerSamples.ts',
  'commands/automation/workflowIds.ts': 'modules/automation/workflowIds.ts',
  'projections/webhooks/attemptsByDelivery.ts': 'modules/webhooks/attemptsByDelivery.ts',
  'domain/webhooks/eventTypes.ts': 'modules/webhooks/domain/eventTypes.ts',
  'domain/webhooks/webhookDelivery.ts': 'modules/webhooks/domain/webhookDelivery.ts',
  'domain/webhooks/webhookEndpoint.ts': 'modules/webhooks/domain/webhookEndpoint.ts',
  'webhooks/eventObject.ts': 'modules/webhooks/eventObject.ts',
  'api/routes/webhooks/webhookEndpointRoutes.ts': 'modules/webhooks/http/webhookEndpointRoutes.ts',
  'api/routes/webhooks/webhookSchemas.ts': 'modules/webhooks/http/webhookSchemas.ts',
  'webhooks/eventTriggerJob.ts': 'modules/webhooks/jobs/eventTriggerJob.ts',
  'webhooks/foldDocs.ts': 'modules/webhooks/jobs/foldDocs.ts',
  'webhooks/inFlight.ts': 'modules/webhooks/jobs/inFlight.ts',
  'webhooks/webhookDispatch.ts': 'modules/webhooks/jobs/webhookDispatch.ts',
  'webhooks/webhookFanout.ts': 'modules/webhooks/jobs/webhookFanout.ts',
  'webhooks/webhookJob.ts': 'modules/webhooks/jobs/webhookJob.ts',
  'webhooks/webhooksApplied.ts': 'modules/webhooks/jobs/webhooksApplied.ts',
  'commands/webhooks/webhookEndpointCommands.ts': 'modules/webhooks/webhookEndpointCommands.ts',
  'projections/webhooks/webhookProjection.ts': 'modules/webhooks/webhookProjection.ts',
  'commands/webhooks/secretBox.ts': 'platform/lib/secretBox.ts',
  'automation/addressClassifier.ts': 'platform/outbound/addressClassifier.ts',
};

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const SKIP = new Set(['node_modules', 'dist', '.git', 'coverage', 'test-results', 'data']);
const toAbs = (p) => join(root, ...p.split('/'));
const toRel = (abs) => relative(root, abs).split(sep).join('/');
const byOld = new Map(Object.entries(MOVES).map(([o, n]) => [toAbs(o), toAbs(n)]));
const byNew = new Map(Object.entries(MOVES).map(([o, n]) => [toAbs(n), toAbs(o)]));

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const path = join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(path);
    else if (/\.(c|m)?(t|j)sx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield path;
  }
}

const isFile = (p) => existsSync(p) && statSync(p).isFile();

function specifierFor(fromFile, target) {
  let spec = relative(dirname(fromFile), target).split(sep).join('/');
  if (!spec.startsWith('.')) spec = `./${spec}`;
  return spec;
}

/** The new specifier for `spec` in `file`, or null when it resolves already (or to nothing we know). */
function rewrite(file, spec) {
  const here = resolve(dirname(file), spec);
  if (isFile(here)) return null;
  if (byOld.has(here)) return specifierFor(file, byOld.get(here));
  // A moved file still carrying specifiers written from where it used to be.
  const oldSelf = byNew.get(file);
  if (oldSelf) {
    const before = resolve(dirname(oldSelf), spec);
    const target = byOld.get(before) ?? before;
    if (isFile(target)) return specifierFor(file, target);
  }
  return null;
}

// Repository-relative mentions (`join(process.cwd(), 'commands/…')`, "see commands/….ts" in a
// comment): an old path standing on its own, not the tail of a longer path.
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const bare = new RegExp(`(?<![\\w./-])(${Object.keys(MOVES).map(escape).join('|')})(?![\\w/-])`, 'g');

const check = process.argv.includes('--check');
const changed = [];
const self = fileURLToPath(import.meta.url);
for (const file of sourceFiles(root)) {
  if (file === self) continue; // the map names the old paths on purpose
  const text = readFileSync(file, 'utf8');
  const next = text.replace(/(['"`])(\.{1,2}\/[^'"`\n]*?)\1/g, (whole, quote, spec) => {
    const to = rewrite(file, spec);
    return to ? `${quote}${to}${quote}` : whole;
  }).replace(bare, (old) => MOVES[old]);
  if (next !== text) {
    changed.push(toRel(file));
    if (!check) writeFileSync(file, next);
  }
}
for (const f of changed) console.log(`${check ? 'would rewrite' : 'rewrote'} ${f}`);
if (check && changed.length) process.exitCode = 1;
