import { createSequence, createTrigger } from '../../modules/automation/automationCommands.ts';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { runImport } from '../../app/import/importFile.ts';
import { loadProductByKey } from '../../modules/catalog/index.ts';
import { refundInvoice } from '../../modules/payments/livePayments.ts';
import { secretBox } from '../../platform/lib/secretBox.ts';
import { createWebhookEndpoint } from '../../modules/webhooks/webhookEndpointCommands.ts';
import { ensureCustomer } from '../../modules/customers/customerCommands.ts';
import { createTestClock } from '../../modules/subscriptions/testClockCommands.ts';
import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { createTaxRate } from '../../modules/tax/index.ts';
import { uploadFile } from '../../modules/files/fileCommands.ts';
import { Readable } from 'node:stream';
import { createBenefit } from '../../modules/benefits/index.ts';
import { offerContent } from '../checkout/checkoutFixtures.ts';
import { seedLicenseKey } from '../licenses/licenseFixtures.ts';
import { SubscriptionLog } from '../subscriptions/subscriptionFixtures.ts';
import type { TestServer } from './testServer.ts';

export type SeededIds = Record<string, string[]>;

/**
 * Gives an organization data of every kind the routes serve, through the real commands and
 * routes of each area, and returns the ids it made by route parameter name (`product`, `id`,
 * `trigger_id`, `workflow_id`, …) for the routes whose ids no list route shows.
 */
export async function seedOrganization(server: TestServer, organizationId: string): Promise<SeededIds> {
  const ctx = () => server.cliContext(organizationId);
  const tag = organizationId.slice(-6);
  await runImport(
    { command: ctx(), organizationId, catchUp: server.settle },
    {
      families: [{ lookup_key: `fam-${tag}`, name: 'Family', id: `fam_${tag}` }],
      products: ['alpha', 'beta'].map((key) => ({
        key: `${key}-${tag}`,
        name: key,
        display_name: key.toUpperCase(),
        description: `About ${key}`,
        family: `fam-${tag}`,
        published: true,
        features: [],
        twins: [],
        plans: [{ name: 'monthly', display_name: 'Monthly', description: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
      })),
    },
  );
  const offer = await upsertOffer(ctx(), { organizationId, slug: `seed-${tag}`, ...offerContent() });
  await publishOffer(ctx(), offer.uuid);
  await server.settle();
  const sessions: string[] = [];
  for (let i = 0; i < 2; i++) {
    const response = await server.fetch('/api/checkout/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offer: offer.slug }),
    });
    if (response.status !== 201) throw new Error(`seeding a session: ${response.status} ${await response.text()}`);
    sessions.push(((await response.json()) as { session: { id: string } }).session.id);
  }
  const sequence = await createSequence(ctx(), { organizationId, name: 'Seed sequence', actions: [] });
  const trigger = await createTrigger(ctx(), { organizationId, sequenceId: sequence.id, name: 'Seed trigger' });
  await server.settle();
  const caught = await server.fetch(`/hooks/catch/${sequence.route_key}/${trigger.route_key}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ email: `buyer-${tag}@example.com` }),
  });
  const workflowId = ((await caught.json()) as { workflow_id: number | null }).workflow_id;
  // A subscription as a completed checkout of a monthly plan leaves it, with its paid invoice.
  const plan = { product_id: `seed-${tag}`, plan_id: 'monthly', plan_name: 'Monthly', renew_interval: 'P1M', invoice_interval: 'P1M' };
  const subscription = await SubscriptionLog.create(server, organizationId, { plan, amount: 1900, at: Math.floor(server.services.clock() / 1000), email: `subscriber-${tag}@example.com` });
  // A refund of part of its first invoice, and the credit note it makes.
  const [created] = await server.services.store.readStream(`subscription-${subscription.id}`);
  const firstInvoice = (created!.data as { first_invoice: { id: string } }).first_invoice.id;
  await refundInvoice(ctx(), server.services, organizationId, firstInvoice, 100);
  // A customer, as a first purchase makes one (the subscription above is written without checkout).
  await ensureCustomer(ctx(), { organizationId, mode: 'test', email: `customer-${tag}@example.com`, name: 'Seed Customer' });
  // An event type the seed never causes: nothing is sent to this address.
  await createWebhookEndpoint(ctx(), secretBox(server.services.secrets.jwt), { organizationId, url: 'https://example.com/seed-hook', eventTypes: ['invoice.voided'] });
  await createTestClock(ctx(), { organizationId, name: 'Seed clock', frozenTime: 1_800_000_000 });
  await createCoupon(ctx(), { organizationId, id: `SEED${tag}`, name: 'Seed coupon', percent_off: 10 });
  await createPromotionCode(ctx(), { organizationId, coupon: `SEED${tag}`, code: `SEED${tag}` });
  await createTaxRate(ctx(), { organizationId, rate: { display_name: 'VAT', description: null, percentage: 21, country: 'NL', state: null, postal_code_prefix: null, jurisdiction: null, active: true } });
  const file = await uploadFile(ctx(), server.services.files, { organizationId, filename: 'seed.pdf', type: 'application/pdf', source: Readable.from([Buffer.from('%PDF-1.4 seed')]) });
  const alpha = (await loadProductByKey(ctx(), organizationId, `alpha-${tag}`))!.routeKey;
  const { benefit } = await createBenefit(ctx(), { organizationId, product: alpha, type: 'file', description: 'Seed file', properties: { files: [file.id] } });
  // A key issued from a benefit the routes find, as a sale of the product would issue it.
  const { benefit: app } = await createBenefit(ctx(), { organizationId, product: alpha, type: 'license_key', description: 'Seed key', properties: { prefix: 'SEED', activation_limit: 2, expires_after_days: null, bound_to: 'perpetual' } });
  await seedLicenseKey(server, organizationId, { productId: app.product_id, benefitId: app.id });
  await server.settle();
  return {
    file: [file.id],
    id: sessions,
    trigger_id: [String(trigger.id)],
    workflow_id: workflowId === null ? [] : [String(workflowId)],
    offer: [offer.slug, offer.id, offer.uuid],
    subscription: [subscription.id],
    product: [benefit.product_id],
  };
}
