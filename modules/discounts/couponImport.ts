import { z } from 'zod';
import { loadProductByKey } from '../catalog/index.ts';
import { applyEach, filePath, ImportValidationError, importSection, type ImportContext, type ImportIssue } from '../../platform/import/index.ts';
import { codeHash, createCoupon, createPromotionCode, loadCoupon, updateCoupon, updatePromotionCode } from './discountCommands.ts';
import { codeClaimStream, type CouponData } from './domain/coupon.ts';
import { CouponCreateBody, PromotionCodeCreateBody } from './http/discountSchemas.ts';

const CodeImport = PromotionCodeCreateBody.omit({ coupon: true }).extend({ code: PromotionCodeCreateBody.shape.code.unwrap() });

const CouponImport = CouponCreateBody.extend({
  id: CouponCreateBody.shape.id.unwrap().describe('Your id for the coupon: re-importing it updates its name, metadata and codes.'),
  applies_to: z.strictObject({ products: z.array(z.string().min(1).max(128)).min(1).max(100).describe('keys of products in this file or already imported.') }).optional(),
  codes: z.array(CodeImport).max(1000).default([]),
});
type CouponImportValue = z.infer<typeof CouponImport>;

export type CouponImportResult = { id: string; created: boolean; changed: boolean; codes: Array<{ code: string; created: boolean; changed: boolean }> };

const HINTS: Record<string, string> = {
  promotion_code_exists: "Codes are unique in the organization whatever their case: another coupon's code has this text.",
  coupon_terms_changed: "A coupon's terms cannot change once made (as Stripe's): give the coupon a new id.",
};

/** What a coupon of the file gives, for comparing with one imported before. */
const terms = (c: Pick<CouponData, 'percent_off' | 'amount_off' | 'currency' | 'duration' | 'duration_in_months' | 'max_redemptions' | 'redeem_by' | 'applies_to' | 'restrictions'>) =>
  JSON.stringify([c.percent_off, c.amount_off, c.currency, c.duration, c.duration_in_months, c.max_redemptions, c.redeem_by, c.applies_to?.products ?? null, c.restrictions]);

async function productIds(ctx: ImportContext, coupon: CouponImportValue, i: number): Promise<string[] | null> {
  if (!coupon.applies_to) return null;
  const ids: string[] = [];
  for (const [n, key] of coupon.applies_to.products.entries()) {
    const product = await loadProductByKey(ctx.command, ctx.organizationId, key);
    if (!product) throw new ImportValidationError([{ path: filePath(['coupons', i, 'applies_to', 'products', n]), message: `No product with key ${key} in this organization.` }]);
    ids.push(product.routeKey);
  }
  return ids;
}

async function applyCoupon(ctx: ImportContext, coupon: CouponImportValue, i: number): Promise<CouponImportResult> {
  const organizationId = ctx.organizationId;
  const { codes, applies_to: _appliesTo, ...fields } = coupon;
  const products = await productIds(ctx, coupon, i);
  const before = await loadCoupon(ctx.command, organizationId, coupon.id);
  let created = false;
  let changed = false;
  if (before.status === 'none') {
    await createCoupon(ctx.command, { organizationId, ...fields, applies_to: products ? { products } : null });
    created = true;
  } else {
    const wanted = couponOfFile(ctx, coupon, products);
    if (before.status === 'deleted' || terms(before.coupon) !== terms(wanted)) {
      throw new ImportValidationError([{ path: filePath(['coupons', i, 'id']), message: `Coupon ${coupon.id}: ${HINTS.coupon_terms_changed}` }], 'refused');
    }
    const name = coupon.name ?? null;
    const metadata = coupon.metadata ?? {};
    if (name !== before.coupon.name || JSON.stringify(metadata) !== JSON.stringify(before.coupon.metadata)) {
      // The file says the whole metadata: keys it leaves out are removed.
      const removed = Object.fromEntries(Object.keys(before.coupon.metadata).filter((k) => !(k in metadata)).map((k) => [k, '']));
      await updateCoupon(ctx.command, organizationId, coupon.id, { name, metadata: { ...removed, ...metadata } });
      changed = true;
    }
  }
  const results: CouponImportResult['codes'] = [];
  for (const [n, code] of codes.entries()) {
    const [claim] = await ctx.command.store.readStream(codeClaimStream(organizationId, codeHash(organizationId, code.code)));
    const holder = claim?.data as { promotion_code_id: string; coupon_id: string } | undefined;
    const state = holder ? await loadCoupon(ctx.command, organizationId, holder.coupon_id) : null;
    const existing = holder && state && state.status !== 'none' ? state.codes[holder.promotion_code_id] : undefined;
    if (!existing) {
      try {
        await createPromotionCode(ctx.command, { organizationId, coupon: coupon.id, ...code });
      } catch (error) {
        if (error instanceof ImportValidationError) throw error;
        throw withPath(error, ['coupons', i, 'codes', n, 'code'], `Code ${code.code}`);
      }
      results.push({ code: code.code, created: true, changed: true });
      continue;
    }
    if (existing.coupon !== coupon.id) {
      throw new ImportValidationError([{ path: filePath(['coupons', i, 'codes', n, 'code']), message: `Code ${code.code}: ${HINTS.promotion_code_exists}` }], 'refused');
    }
    const active = code.active ?? true;
    const metadata = code.metadata ?? {};
    const codeChanged = active !== existing.active || JSON.stringify(metadata) !== JSON.stringify(existing.metadata);
    if (codeChanged) {
      const removed = Object.fromEntries(Object.keys(existing.metadata).filter((k) => !(k in metadata)).map((k) => [k, '']));
      await updatePromotionCode(ctx.command, organizationId, existing.id, { active, metadata: { ...removed, ...metadata } });
    }
    results.push({ code: existing.code, created: false, changed: codeChanged });
  }
  return { id: coupon.id, created, changed: changed || results.some((r) => r.changed), codes: results };
}

/** The coupon the file describes, in the shape the stream holds, to compare terms. */
function couponOfFile(ctx: ImportContext, coupon: CouponImportValue, products: string[] | null): CouponData {
  return {
    id: coupon.id,
    organization_id: ctx.organizationId,
    name: coupon.name ?? null,
    percent_off: coupon.percent_off ?? null,
    amount_off: coupon.amount_off ?? null,
    currency: coupon.amount_off !== undefined ? (coupon.currency ?? null) : null,
    duration: coupon.duration,
    duration_in_months: coupon.duration === 'repeating' ? (coupon.duration_in_months ?? null) : null,
    max_redemptions: coupon.max_redemptions ?? null,
    redeem_by: coupon.redeem_by ?? null,
    applies_to: products ? { products: [...new Set(products)] } : null,
    restrictions: {
      first_time_transaction: coupon.restrictions?.first_time_transaction ?? false,
      minimum_amount: coupon.restrictions?.minimum_amount ?? null,
      minimum_amount_currency: coupon.restrictions?.minimum_amount != null ? (coupon.restrictions.minimum_amount_currency ?? null) : null,
    },
    metadata: coupon.metadata ?? {},
    created: 0,
  };
}

function withPath(error: unknown, path: PropertyKey[], label: string): unknown {
  if (!(error instanceof Error) || !('code' in error)) return error;
  return new ImportValidationError([{ path: filePath(path), message: `${label}: ${error.message}${HINTS[String(error.code)] ? ` ${HINTS[String(error.code)]}` : ''}` }], 'refused');
}

/**
 * The `coupons` section of `commerce import`: a re-import updates a coupon's name, metadata and codes
 * and adds new codes; its terms (the discount, limits, products) cannot change.
 */
export const couponsSection = importSection({
  name: 'coupons',
  schema: z.array(CouponImport).max(1000),
  check(coupons) {
    const issues: ImportIssue[] = [];
    const ids = new Set<string>();
    const codes = new Set<string>();
    coupons.forEach((c, i) => {
      if (ids.has(c.id)) issues.push({ path: filePath(['coupons', i, 'id']), message: 'Coupon ids must be unique within the file.' });
      ids.add(c.id);
      c.codes.forEach((code, n) => {
        const key = code.code.toUpperCase();
        if (codes.has(key)) issues.push({ path: filePath(['coupons', i, 'codes', n, 'code']), message: 'Codes must be unique within the file, whatever their case.' });
        codes.add(key);
      });
    });
    return issues;
  },
  async apply(ctx, coupons): Promise<CouponImportResult[]> {
    return applyEach('coupons', coupons, (c) => ({ label: `Coupon ${c.id}`, field: 'id' }), HINTS, (coupon, i) => applyCoupon(ctx, coupon, i));
  },
  describe: (results: CouponImportResult[]) =>
    results.flatMap((r) => [
      `${r.created ? 'created  ' : r.changed ? 'updated  ' : 'unchanged'} coupon ${r.id}`,
      ...r.codes.map((c) => `${c.created ? 'created  ' : c.changed ? 'updated  ' : 'unchanged'} promotion code ${c.code} (coupon ${r.id})`),
    ]),
});
