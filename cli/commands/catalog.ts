import { sendWebhookSecretBox } from '../../modules/automation/sendWebhookSecrets.ts';
import { readFileSync } from 'node:fs';
import { archiveProduct, publishProduct } from '../../modules/catalog/productCommands.ts';
import { decodeRouteKey } from '../../platform/lib/routeKeys.ts';
import { DomainError, notFound } from '../../platform/domain/domainError.ts';
import type { ProductDoc } from '../../modules/catalog/catalogProjection.ts';
import { findProductAnyOrganization, findProductByKey } from '../../modules/catalog/catalogQueries.ts';
import { parseImportJson, runImport, type ImportResult } from '../../app/import/importFile.ts';
import { importSections } from '../../app/import/importSections.ts';
import type { OfferImportResult } from '../../modules/checkout/offerImport.ts';
import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { checkoutUrl } from './lists.ts';
import { findOfferByRef } from '../../modules/checkout/checkoutQueries.ts';
import { CliUsageError, requireArg, requireOption, type CliCommand, type CliContext } from '../command.ts';

type ImportLinks = { checkout_links: Array<{ slug: string; published: boolean; url: string }>; sdk_example_url: string | null };

export const importCommand: CliCommand = {
  path: ['import'],
  usage: 'import FILE --org ORG',
  maxArgs: 1,
  description: `Import a catalog file (sections: ${importSections.map((s) => s.name).join(', ')}); validated whole first, re-imports update by key.`,
  options: { org: 'string' },
  async run(ctx) {
    const file = requireArg(ctx.args, 'import needs a FILE (JSON), or - for standard input');
    const organizationId = requireOption(ctx.options, 'org');
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (error) {
      throw new CliUsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    const result = await runImport(
      { command: ctx.commandContext(organizationId), organizationId, catchUp: ctx.catchUp, sendWebhookSecrets: sendWebhookSecretBox(ctx.services.secrets.jwt) },
      parseImportJson(text),
    );
    // Where to try what was imported: each offer's hosted checkout page, and the SDK example page on it.
    const base = serviceBaseUrl(ctx.services.config);
    const offers = (result.sections.offers ?? []) as OfferImportResult[];
    if (offers.length > 0) await ctx.catchUp();
    const checkoutLinks: ImportLinks['checkout_links'] = [];
    for (const o of offers) {
      // Published by this file or before it: the page answers only then.
      const published = o.published || (await findOfferByRef(ctx.services.readStore, o.slug))?.status === 'published';
      checkoutLinks.push({ slug: o.slug, published, url: checkoutUrl(base, o.slug) });
    }
    return { ...result, checkout_links: checkoutLinks, sdk_example_url: offers[0] ? `${base}/examples/sdk?offer=${encodeURIComponent(offers[0].slug)}` : null };
  },
  format: (r: ImportResult & ImportLinks) =>
    [
      `Imported into ${r.organization_id}:`,
      ...importSections.flatMap((s) => (s.name in r.sections && s.describe ? s.describe(r.sections[s.name]).map((l) => `  ${l}`) : [])),
      ...(r.checkout_links.length > 0
        ? [
            '',
            'Checkout links (the hosted checkout page; pay with 4242 4242 4242 4242 in test mode):',
            ...r.checkout_links.map((l) => `  ${l.url}${l.published ? '' : `  (not published yet: commerce offer publish ${l.slug})`}`),
          ]
        : []),
      ...(r.sdk_example_url ? [`SDK example page: ${r.sdk_example_url}`] : []),
    ].join('\n'),
};

/** A product by route key, or by import key when --org is given. */
async function resolveProduct(ctx: CliContext): Promise<ProductDoc> {
  const ref = requireArg(ctx.args, 'needs a product ID: its route key, or its import key with --org');
  await ctx.catchUp();
  const org = typeof ctx.options.org === 'string' ? ctx.options.org : null;
  let product: ProductDoc | null = null;
  if (decodeRouteKey(ref) !== null) {
    product = await findProductAnyOrganization(ctx.services.readStore, ref);
    if (product && org !== null && product.organization_id !== org) product = null;
  }
  if (!product && org !== null) product = await findProductByKey(ctx.services.readStore, org, ref);
  if (!product && org === null) {
    // An import key without --org is the likely slip (`product archive photo-basics`): say so.
    throw new DomainError('not_found', 'not_found', `Product not found. No product has the route key '${ref}'; to find one by its import key, add --org ORG.`);
  }
  if (!product) throw notFound('Product');
  return product;
}

type LifecycleResult = { id: string; key: string; organization_id: string; changed: boolean; version_number: number };

const lifecycle = (verb: 'publish' | 'archive', act: typeof publishProduct): CliCommand => ({
  path: ['product', verb],
  usage: `product ${verb} ID [--org ORG]`,
  maxArgs: 1,
  description:
    verb === 'publish'
      ? 'Publish a product (sets published_at). ID is its route key, or its import key with --org.'
      : 'Archive a product (status archived, sets archived_at). ID is its route key, or its import key with --org.',
  options: { org: 'string' },
  async run(ctx): Promise<LifecycleResult> {
    const product = await resolveProduct(ctx);
    const result = await act(ctx.commandContext(product.organization_id), product.id);
    return { id: product.route_key, key: product.key, organization_id: product.organization_id, ...result };
  },
  format: (r: LifecycleResult) =>
    r.changed
      ? `product ${r.key} (${r.id}) ${verb === 'publish' ? 'published' : 'archived'}, version ${r.version_number}`
      : `product ${r.key} (${r.id}) was already ${verb === 'publish' ? 'published' : 'archived'}`,
});

export const productPublishCommand = lifecycle('publish', publishProduct);
export const productArchiveCommand = lifecycle('archive', archiveProduct);
