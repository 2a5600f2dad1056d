import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';

// The repository's own eslint.config.js, run on text placed at real paths of the tree: the rules
// follow imports on disk, so each probe sits where the layer it tests lives.
const eslint = new ESLint({ cwd: process.cwd() });
// The same, without the cycle rule, for the probes of the other rules: it would follow each probe's
// import through the whole tree (the composition root's is most of it) to answer what they do not ask.
const withoutCycleRule = new ESLint({ cwd: process.cwd(), overrideConfig: { rules: { 'import-x/no-cycle': 'off' } } });

async function ruleIds(filePath: string, code: string, linter = withoutCycleRule): Promise<string[]> {
  const [result] = await linter.lintText(code, { filePath });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe('layer lint rules', () => {
  it('refuses a run-time import cycle', async () => {
    // platform/lib/offerRef.ts imports platform/lib/routeKeys.ts; routeKeys importing offerRef back closes a cycle.
    const ids = await ruleIds('platform/lib/routeKeys.ts', "import { parseOfferRef } from './offerRef.ts';\nexport const probe = parseOfferRef;\n", eslint);
    expect(ids).toContain('import-x/no-cycle');
  }, 60_000);

  it('lets a type-only import point back (erased at run time)', async () => {
    const ids = await ruleIds('platform/lib/routeKeys.ts', "import type { OfferRef } from './offerRef.ts';\nexport type Probe = OfferRef;\n", eslint);
    expect(ids).not.toContain('import-x/no-cycle');
  }, 60_000);

  it.each([
    ['platform/eventStore/probe.ts', '../es/handleCommand.ts'],
    ['platform/eventStore/probe.ts', '../readStore/readStore.ts'],
    ['platform/readStore/probe.ts', '../eventStore/eventStore.ts'],
    ['platform/sqlite/probe.ts', '../eventStore/eventStore.ts'],
    ['platform/es/probe.ts', '../../app/compose.ts'],
    ['platform/outbound/probe.ts', '../es/handleCommand.ts'],
    ['modules/webhooks/http/probe.ts', '../../../app/compose.ts'],
    ['app/probe.ts', '../cli/main.ts'],
    ['platform/lib/probe.ts', '../es/handleCommand.ts'],
    // platform/ builds on no feature.
    ['platform/es/probe.ts', '../../modules/checkout/index.ts'],
    // A module reaches another through its index.ts only, and never the composition root.
    ['modules/checkout/probe.ts', '../catalog/productCommands.ts'],
    ['modules/checkout/http/probe.ts', '../../catalog/domain/product.ts'],
    ['modules/checkout/probe.ts', '../../app/modules.ts'],
    ['modules/checkout/probe.ts', '../../platform/es/handleCommand.ts'],
    ['modules/checkout/probe.ts', '../../modules/webhooks/jobs/webhookJob.ts'],
    ['modules/automation/probe.ts', '../webhooks/jobs/webhookJob.ts'],
    ['modules/webhooks/jobs/probe.ts', '../../automation/automationProjection.ts'],
    ['modules/receipts/jobs/probe.ts', '../../webhooks/domain/webhookEndpoint.ts'],
    ['modules/payments/probe.ts', '../../platform/lib/secretBox.ts'],
    ['modules/automation/probe.ts', '../../platform/outbound/addressClassifier.ts'],
    // Every module folder and every part of platform/ is held to this, as it is on disk.
    ['modules/customers/probe.ts', '../subscriptions/domain/subscription.ts'],
    ['modules/benefits/probe.ts', '../licenses/licenseCommands.ts'],
    ['modules/tax/probe.ts', '../../platform/privacy/sealing.ts'],
    ['platform/eventStore/probe.ts', '../privacy/sealing.ts'],
    // Write code decides on streams: it reaches no read model, not even its own module's.
    ['modules/checkout/probeCommands.ts', '../../platform/readStore/index.ts'],
    ['modules/checkout/probeCommands.ts', './checkoutQueries.ts'],
    ['modules/automation/probeCommands.ts', './automationProjection.ts'],
  ])('refuses %s importing %s', async (file, target) => {
    const ids = await ruleIds(file, `import * as upward from '${target}';\nexport const probe = upward;\n`);
    expect(ids).toContain('import-x/no-restricted-paths');
  }, 60_000);

  it.each([
    ['modules/automation/probe.ts', '../webhooks/index.ts'],
    ['modules/receipts/jobs/probe.ts', '../../webhooks/index.ts'],
    ['modules/payments/probe.ts', '../../platform/lib/index.ts'],
    ['modules/automation/probe.ts', '../../platform/outbound/index.ts'],
    ['platform/outbound/probe.ts', '../domain/index.ts'],
    ['app/probe.ts', './httpApp.ts'],
    ['cli/probe.ts', '../app/compose.ts'],
    ['modules/checkout/probe.ts', '../catalog/index.ts'],
    ['modules/checkout/probe.ts', '../../platform/es/index.ts'],
    ['modules/checkout/domain/probe.ts', '../../catalog/domain/product.ts'],
    ['modules/automation/domain/probe.ts', '../../webhooks/domain/eventTypes.ts'],
  ])('lets %s import %s', async (file, target) => {
    const ids = await ruleIds(file, `import * as below from '${target}';\nexport const probe = below;\n`);
    expect(ids).not.toContain('import-x/no-restricted-paths');
  }, 60_000);

  it.each([
    ['modules/checkout/domain/probe.ts', 'node:crypto'],
    ['modules/checkout/domain/probe.ts', '../../catalog/index.ts'],
    ['modules/checkout/domain/probe.ts', '../checkoutQueries.ts'],
    ['platform/domain/probe.ts', '../es/handleCommand.ts'],
  ])('keeps %s pure: refuses %s', async (file, target) => {
    const ids = await ruleIds(file, `import * as outside from '${target}';\nexport const probe = outside;\n`);
    expect(ids).toContain('no-restricted-imports');
  }, 60_000);

  it.each([
    ['modules/checkout/domain/probe.ts', '../../../platform/domain/index.ts'],
    ['modules/checkout/domain/probe.ts', './offer.ts'],
  ])('lets the pure %s import %s', async (file, target) => {
    const ids = await ruleIds(file, `import * as pure from '${target}';\nexport const probe = pure;\n`);
    expect(ids).not.toContain('no-restricted-imports');
  }, 60_000);
});
