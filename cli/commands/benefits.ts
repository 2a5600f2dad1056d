import { createBenefit } from '../../modules/benefits/benefitCommands.ts';
import { listBenefits, listGrants, presentBenefit, presentGrant } from '../../modules/benefits/benefitQueries.ts';
import { BenefitCreateBody, type BenefitGrantObject, type BenefitObject } from '../../modules/benefits/http/benefitSchemas.ts';
import { loadProductByKey, loadProductByRef } from '../../modules/catalog/index.ts';
import { CliUsageError, parsedBody, requireArg, textOption as text, type CliCommand, type CliContext, type CliOptions } from '../command.ts';
import { organizationOption } from './organizationOption.ts';

function integerOption(options: CliOptions, name: string): number | undefined {
  const raw = text(options, name);
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw.trim())) throw new CliUsageError(`--${name} takes a whole number (${raw} is not one)`);
  return Number(raw);
}

/** A product by its id (route key), UUID or import key, in the organization. */
async function productOf(ctx: CliContext, organizationId: string, ref: string) {
  const command = ctx.commandContext(organizationId);
  const product = (await loadProductByRef(command, organizationId, ref)) ?? (await loadProductByKey(command, organizationId, ref));
  if (!product) throw new CliUsageError(`no product '${ref}' in this organization (see commerce product list)`);
  return product;
}

const properties = (b: BenefitObject) => {
  const p = b.properties;
  if ('files' in p) return `files ${p.files.join(', ')}`;
  const limit = p.activation_limit === null ? 'unlimited activations' : `${p.activation_limit} activation${p.activation_limit === 1 ? '' : 's'}`;
  const expiry = p.expires_after_days === null ? 'no expiry' : `expires after ${p.expires_after_days} days`;
  return `${p.prefix ? `prefix ${p.prefix}, ` : ''}${limit}, ${expiry}, ${p.bound_to}`;
};
const describeBenefit = (b: BenefitObject) => `${b.id}  ${b.type}  product ${b.product_id}  ${b.description}  (${properties(b)})`;
const describeGrant = (g: BenefitGrantObject) =>
  `${g.id}  ${g.status}${g.revoke_cause ? ` (${g.revoke_cause})` : ''}  ${g.benefit_type} ${g.benefit_id}  customer ${g.customer_id}  ${g.source.type} ${g.source.id}`;

export const benefitListCommand: CliCommand = {
  path: ['benefits', 'list'],
  usage: 'benefits list [--product ID|KEY] [--type file|license_key] [--org ORG]',
  description: "The benefits of an organization's products (files, license keys), newest first.",
  options: { org: 'string', product: 'string', type: 'string' },
  async run(ctx) {
    const org = await organizationOption(ctx, 'benefits list');
    const type = text(ctx.options, 'type');
    if (type !== undefined && type !== 'file' && type !== 'license_key') throw new CliUsageError('--type takes file or license_key');
    const ref = text(ctx.options, 'product');
    const product = ref === undefined ? undefined : (await productOf(ctx, org, ref)).routeKey;
    const { items } = await listBenefits(ctx.services.readStore, org, { product, type, skip: 0, limit: 1000 });
    return items.map(presentBenefit);
  },
  format: (benefits: BenefitObject[]) => (benefits.length === 0 ? 'no benefits (commerce benefits create PRODUCT)' : benefits.map(describeBenefit).join('\n')),
};

export const benefitCreateCommand: CliCommand = {
  path: ['benefits', 'create'],
  usage:
    'benefits create PRODUCT --description TEXT (--files file_…,file_… | --license-key [--prefix P] [--activation-limit N] [--expires-after-days N] [--bound-to subscription|perpetual]) [--org ORG]',
  description: "Add a benefit to a product (its id, UUID or import key): files to download, or a license key per buyer. Granted to its buyers still entitled, and to each later one.",
  options: { org: 'string', description: 'string', files: 'string', 'license-key': 'boolean', prefix: 'string', 'activation-limit': 'string', 'expires-after-days': 'string', 'bound-to': 'string' },
  maxArgs: 1,
  async run(ctx) {
    const org = await organizationOption(ctx, 'benefits create');
    const ref = requireArg(ctx.args, 'benefits create needs the product (see commerce product list)');
    const o = ctx.options;
    const files = text(o, 'files');
    if ((files === undefined) === (o['license-key'] !== true)) throw new CliUsageError('give --files for a file benefit or --license-key for a license key benefit, one of them');
    const body =
      files !== undefined
        ? { type: 'file', description: text(o, 'description'), properties: { files: files.split(',').map((f) => f.trim()).filter(Boolean) } }
        : {
            type: 'license_key',
            description: text(o, 'description'),
            properties: Object.fromEntries(
              Object.entries({ prefix: text(o, 'prefix'), activation_limit: integerOption(o, 'activation-limit'), expires_after_days: integerOption(o, 'expires-after-days'), bound_to: text(o, 'bound-to') }).filter(([, v]) => v !== undefined),
            ),
          };
    const data = parsedBody(BenefitCreateBody, body);
    const product = await productOf(ctx, org, ref);
    const { benefit } = await createBenefit(ctx.commandContext(org), { organizationId: org, product: product.routeKey, ...data });
    return presentBenefit(benefit);
  },
  format: (b: BenefitObject) => `benefit created: ${describeBenefit(b)}`,
};

export const benefitGrantListCommand: CliCommand = {
  path: ['benefits', 'grants'],
  usage: 'benefits grants [--customer cus_…] [--benefit ben_…] [--status granted|revoked] [--org ORG]',
  description: 'Benefits granted to customers, newest first, with why a revoked one was revoked.',
  options: { org: 'string', customer: 'string', benefit: 'string', status: 'string' },
  async run(ctx) {
    const org = await organizationOption(ctx, 'benefits grants');
    const status = text(ctx.options, 'status');
    if (status !== undefined && status !== 'granted' && status !== 'revoked') throw new CliUsageError('--status takes granted or revoked');
    const { items } = await listGrants(ctx.services.readStore, org, { customer: text(ctx.options, 'customer'), benefit: text(ctx.options, 'benefit'), status, skip: 0, limit: 1000 });
    return items.map(presentGrant);
  },
  format: (grants: BenefitGrantObject[]) => (grants.length === 0 ? 'no grants' : grants.map(describeGrant).join('\n')),
};

export const benefitCommands: CliCommand[] = [benefitListCommand, benefitCreateCommand, benefitGrantListCommand];
