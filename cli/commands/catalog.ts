import { readFileSync } from 'node:fs';
import { archiveProduct, publishProduct } from '../../commands/catalog/productCommands.ts';
import { decodeRouteKey } from '../../commands/routeKeys.ts';
import { DomainError, notFound } from '../../domain/shared/domainError.ts';
import type { ProductDoc } from '../../projections/catalog/catalogProjection.ts';
import { findProductAnyOrganization, findProductByKey } from '../../projections/catalog/catalogQueries.ts';
import { parseImportJson, runImport, type ImportResult } from '../../commands/import/importFile.ts';
import { importSections } from '../../commands/import/importSections.ts';
import { CliUsageError, requireOption, type CliCommand, type CliContext } from '../command.ts';

export const importCommand: CliCommand = {
  path: ['import'],
  usage: 'import FILE --org ORG',
  maxArgs: 1,
  description: `Import a catalog file (sections: ${importSections.map((s) => s.name).join(', ')}); validated whole first, re-imports update by key.`,
  options: { org: 'string' },
  async run(ctx) {
    const file = ctx.args[0];
    if (!file) throw new CliUsageError('import needs a FILE (JSON), or - for standard input');
    const organizationId = requireOption(ctx.options, 'org');
    let text: string;
    try {
      text = readFileSync(file === '-' ? 0 : file, 'utf8');
    } catch (error) {
      throw new CliUsageError(`cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
    }
    return runImport(
      { command: ctx.commandContext(organizationId), organizationId, readStore: ctx.services.readStore, catchUp: ctx.catchUp },
      parseImportJson(text),
    );
  },
  format: (r: ImportResult) =>
    [
      `Imported into ${r.organization_id}:`,
      ...importSections.flatMap((s) => (s.name in r.sections && s.describe ? s.describe(r.sections[s.name]).map((l) => `  ${l}`) : [])),
    ].join('\n'),
};

/** A product by route key, or by import key when --org is given. */
async function resolveProduct(ctx: CliContext): Promise<ProductDoc> {
  const ref = ctx.args[0];
  if (!ref) throw new CliUsageError('needs a product ID: its route key, or its import key with --org');
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
