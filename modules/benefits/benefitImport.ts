import { createHash } from 'node:crypto';
import { z } from 'zod';
import { applyEach, filePath, ImportValidationError, importSection, type ImportContext, type ImportIssue } from '../../platform/import/index.ts';
import { loadProductByKey } from '../catalog/index.ts';
import { createBenefit, loadBenefit, updateBenefit } from './benefitCommands.ts';
import { DEFAULT_KEY_PROPERTIES, Description, FileProperties, LicenseKeyProperties } from './http/benefitSchemas.ts';

const Key = z.string().min(1).max(64).regex(/^[A-Za-z0-9_.-]+$/, 'must contain only letters, digits, ., - and _').describe('Your key for the benefit, unique per product: re-importing it updates the benefit.');
const ProductKey = z.string().min(1).max(128).describe('The key of a product in this file or already imported.');

const BenefitImport = z.discriminatedUnion('type', [
  z.strictObject({ key: Key, product: ProductKey, type: z.literal('file'), description: Description, properties: FileProperties }),
  z.strictObject({ key: Key, product: ProductKey, type: z.literal('license_key'), description: Description, properties: LicenseKeyProperties.default(DEFAULT_KEY_PROPERTIES) }),
]);
type BenefitImportValue = z.infer<typeof BenefitImport>;

export type BenefitImportResult = { id: string; key: string; product: string; created: boolean; changed: boolean };

/**
 * The benefit's id, from the organization, its product and its key: a second import of the file
 * finds the benefit it made without a read model (the id's claim names the product).
 */
const importedBenefitId = (organizationId: string, productId: string, key: string) =>
  `ben_${createHash('sha256').update(`${organizationId}|${productId}|${key}`).digest('hex').slice(0, 32)}`;

async function applyBenefit(ctx: ImportContext, item: BenefitImportValue, i: number): Promise<BenefitImportResult> {
  const organizationId = ctx.organizationId;
  const product = await loadProductByKey(ctx.command, organizationId, item.product);
  if (!product) throw new ImportValidationError([{ path: filePath(['benefits', i, 'product']), message: `No product with key ${item.product} in this organization.` }]);
  const id = importedBenefitId(organizationId, product.routeKey, item.key);
  const before = await loadBenefit(ctx.command, organizationId, id);
  const result = { id, key: item.key, product: item.product };
  if (!before) {
    await createBenefit(ctx.command, { organizationId, product: product.routeKey, type: item.type, description: item.description, properties: item.properties, id });
    return { ...result, created: true, changed: true };
  }
  if (before.deleted) {
    throw new ImportValidationError([{ path: filePath(['benefits', i, 'key']), message: `Benefit ${item.key}: it was deleted; give it a new key.` }], 'refused');
  }
  if (before.type !== item.type) {
    throw new ImportValidationError([{ path: filePath(['benefits', i, 'type']), message: `Benefit ${item.key}: a benefit's type cannot change; give it a new key.` }], 'refused');
  }
  const { position } = await updateBenefit(ctx.command, organizationId, id, { description: item.description, properties: item.properties });
  return { ...result, created: false, changed: position !== null };
}

/**
 * The `benefits` section of `commerce import`: each benefit by its product's key and its own key.
 * Re-importing one updates its description and properties; its type cannot change.
 */
export const benefitsSection = importSection({
  name: 'benefits',
  schema: z.array(BenefitImport).max(1000),
  check(benefits) {
    const issues: ImportIssue[] = [];
    const keys = new Set<string>();
    benefits.forEach((b, i) => {
      const key = JSON.stringify([b.product, b.key]);
      if (keys.has(key)) issues.push({ path: filePath(['benefits', i, 'key']), message: 'Benefit keys must be unique per product within the file.' });
      keys.add(key);
    });
    return issues;
  },
  async apply(ctx, benefits): Promise<BenefitImportResult[]> {
    return applyEach('benefits', benefits, (b) => ({ label: `Benefit ${b.key}`, field: 'key' }), {}, (b, i) => applyBenefit(ctx, b, i));
  },
  describe: (results: BenefitImportResult[]) => results.map((r) => `${r.created ? 'created  ' : r.changed ? 'updated  ' : 'unchanged'} benefit ${r.key} of product ${r.product} (${r.id})`),
});
