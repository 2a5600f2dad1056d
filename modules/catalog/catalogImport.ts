import { z } from 'zod';
import { MAX_AMOUNT } from '../../platform/domain/index.ts';
import { currencyCode, minorUnits } from '../../platform/lib/index.ts';
import type { DesiredProduct, Family, PlanInput } from './domain/product.ts';
import { planIntervalProblems } from './domain/planIntervals.ts';
import { applyEach, filePath } from '../../platform/import/index.ts';
import { importSection, type ImportIssue } from '../../platform/import/index.ts';
import { upsertProductByKey, type ProductWriteResult } from './productCommands.ts';

/** ISO 8601 durations as plans use them: P1M, P1Y, P14D, PT12H… (no fractions, not empty). */
const ISO_DURATION = /^P(?!$)(\d+Y)?(\d+M)?(\d+W)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+S)?)?$/;
const duration = z.string().regex(ISO_DURATION, 'Must be an ISO 8601 duration such as P1M or P1Y.');

/**
 * Cross-field checks run even when a field of the same object failed, so a file's every problem
 * is listed at once; they read the value defensively since parts of it may be invalid.
 */
const always = { when: (payload: { value: unknown }) => typeof payload.value === 'object' && payload.value !== null };

/** The narrow symbol people expect on a price (€, $, £), from the code. */
export function currencySymbol(code: string): string {
  const part = new Intl.NumberFormat('en', { style: 'currency', currency: code, currencyDisplay: 'narrowSymbol' })
    .formatToParts(0)
    .find((p) => p.type === 'currency');
  return part?.value ?? code;
}

/** The invoice_interval of a one_time plan that names none: invoiced once, so no interval. */
export const ONE_TIME_INVOICE_INTERVAL = 'P0D';

const text = (max: number) => z.string().trim().min(1).max(max);
const identifier = z
  .string()
  .min(1)
  .max(128)
  .regex(/^[A-Za-z0-9][A-Za-z0-9._:-]*$/, 'Use letters, digits and . _ : - (starting with a letter or digit).');

export const FamilyImport = z.strictObject({
  lookup_key: identifier,
  name: text(255),
  id: identifier.optional().describe('Defaults to fam_<lookup_key>.'),
});

const FeatureImport = z.strictObject({
  id: identifier,
  name: text(255),
  description: z.string().max(2000).nullable().default(null),
  value: z.union([z.string().max(2000), z.number().finite(), z.boolean()]).nullable().default(null),
});

const TwinImport = z.strictObject({ provider: identifier, external_id: text(255) });

const ChargeImport = z.strictObject({
  type: z.literal('flat').default('flat'),
  amount: minorUnits('amount').describe('Minor units (cents).'),
  currency_code: currencyCode.optional().describe("Defaults to the plan's currency."),
});

const PlanImport = z
  .strictObject({
    name: text(255),
    display_name: text(255),
    description: z.string().max(5000).default(''),
    type: z.enum(['recurring', 'one_time']).default('recurring'),
    status: z.literal('active').default('active'),
    renew_interval: duration.nullable().optional(),
    billing_anchor: z.literal('anniversary').default('anniversary'),
    /** A one_time plan is invoiced once: without one it gets P0D (no interval). */
    invoice_interval: duration.optional(),
    currency_code: currencyCode,
    currency_symbol: text(8).optional(),
    charges: z.array(ChargeImport).max(50).default([]),
    tax_behavior: z.enum(['inclusive', 'exclusive', 'unspecified']).default('unspecified').describe("Whether the prices include tax; `unspecified`: the tax settings' default."),
  })
  .superRefine((plan, ctx) => {
    const type = plan.type ?? 'recurring';
    if (type === 'recurring' && !plan.renew_interval) {
      ctx.addIssue({ code: 'custom', path: ['renew_interval'], message: 'A recurring plan needs a renew_interval.' });
    }
    if (type === 'one_time' && plan.renew_interval) {
      ctx.addIssue({ code: 'custom', path: ['renew_interval'], message: 'A one_time plan does not renew: leave renew_interval null.' });
    }
    // A subscription bills a recurring plan: its intervals must be ones it can bill. Fields that
    // are not durations at all were reported by their own schema.
    const isDuration = (v: unknown): v is string => typeof v === 'string' && ISO_DURATION.test(v);
    const invoice = plan.invoice_interval ?? plan.renew_interval;
    if (type === 'recurring' && isDuration(plan.renew_interval) && isDuration(invoice)) {
      for (const problem of planIntervalProblems({ type, renew_interval: plan.renew_interval, invoice_interval: invoice })) {
        // Without an invoice_interval the plan is invoiced each renew_interval: one problem, named once.
        if (problem.field === 'invoice_interval' && plan.invoice_interval === undefined) continue;
        ctx.addIssue({ code: 'custom', path: [problem.field], message: problem.message });
      }
    }
    const charges = Array.isArray(plan.charges) ? plan.charges : [];
    charges.forEach((charge, i) => {
      if (charge?.currency_code && charge.currency_code !== plan.currency_code) {
        ctx.addIssue({ code: 'custom', path: ['charges', i, 'currency_code'], message: "A charge's currency must be its plan's currency." });
      }
    });
    // An offer of the plan charges the sum, which must stay a price too.
    const total = charges.reduce((sum, c) => sum + (typeof c?.amount === 'number' ? c.amount : 0), 0);
    if (total > MAX_AMOUNT) {
      ctx.addIssue({ code: 'custom', path: ['charges'], message: `The charges of a plan must add up to at most ${MAX_AMOUNT} minor units.` });
    }
  }, always);

export const ProductImport = z
  .strictObject({
    key: identifier.describe('Your id of the product: re-importing a key updates that product.'),
    name: text(255).nullable().default(null),
    display_name: text(255).nullable().default(null),
    description: z.string().max(10_000).nullable().default(null),
    family: identifier.nullable().default(null).describe('lookup_key of a family in this file.'),
    status: z.enum(['active', 'archived']).default('active'),
    published: z.boolean().default(false),
    features: z.array(FeatureImport).max(200).default([]),
    twins: z.array(TwinImport).max(50).default([]),
    plans: z.array(PlanImport).max(100).default([]),
  })
  .superRefine((product, ctx) => {
    duplicates(namesOf(product.plans, 'name')).forEach((i) =>
      ctx.addIssue({ code: 'custom', path: ['plans', i, 'name'], message: 'Plan names must be unique within a product.' }),
    );
    duplicates(namesOf(product.features, 'id')).forEach((i) =>
      ctx.addIssue({ code: 'custom', path: ['features', i, 'id'], message: 'Feature ids must be unique within a product.' }),
    );
  }, always);

/** The string `field` of each element (undefined where the element is not valid), positions kept. */
function namesOf(items: unknown, field: string): Array<string | undefined> {
  if (!Array.isArray(items)) return [];
  return items.map((item: unknown) => {
    const value = item && typeof item === 'object' ? (item as Record<string, unknown>)[field] : undefined;
    return typeof value === 'string' ? value : undefined;
  });
}

type ProductImportValue = z.infer<typeof ProductImport>;

function duplicates(values: Array<string | undefined>): number[] {
  const seen = new Set<string>();
  return values.flatMap((v, i) => (v === undefined ? [] : seen.has(v) ? [i] : (seen.add(v), [])));
}

export const familyOf = (f: z.infer<typeof FamilyImport>): Family => ({ id: f.id ?? `fam_${f.lookup_key}`, name: f.name, lookup_key: f.lookup_key });

export function desiredProduct(product: ProductImportValue, families: Map<string, Family>): DesiredProduct {
  const plans = product.plans.map(
    (p): PlanInput => ({
      name: p.name,
      display_name: p.display_name,
      description: p.description,
      status: p.status,
      type: p.type,
      renew_interval: p.renew_interval ?? null,
      billing_anchor: p.billing_anchor,
      invoice_interval: p.invoice_interval ?? p.renew_interval ?? ONE_TIME_INVOICE_INTERVAL,
      currency_code: p.currency_code,
      currency_symbol: p.currency_symbol ?? currencySymbol(p.currency_code),
      // A charge is identified by its position in its plan (ch_1, ch_2…): stable across re-imports.
      charges: p.charges.map((c, n) => ({ id: `ch_${n + 1}`, type: c.type, amount: c.amount, currency_code: c.currency_code ?? p.currency_code })),
      ...(p.tax_behavior !== 'unspecified' ? { tax_behavior: p.tax_behavior } : {}),
    }),
  );
  return {
    details: {
      name: product.name,
      display_name: product.display_name,
      description: product.description,
      family: product.family === null ? null : families.get(product.family)!,
      features: product.features.map((f) => ({ id: f.id, name: f.name, description: f.description, value: f.value })),
      twins: product.twins.map((t) => ({ provider: t.provider, external_id: t.external_id })),
    },
    plans,
    status: product.status,
    published: product.published,
  };
}

export const familiesSection = importSection({
  name: 'families',
  schema: z.array(FamilyImport).max(1000),
  check(families) {
    return duplicates(families.map((f) => f.lookup_key)).map((i) => ({ path: filePath(['families', i, 'lookup_key']), message: 'Family lookup_keys must be unique.' }));
  },
  // Families are embedded in the products that name them; the section itself records nothing.
  async apply(_ctx, families) {
    return { count: families.length };
  },
  describe: (r: { count: number }) => (r.count > 0 ? [`${r.count} famil${r.count === 1 ? 'y' : 'ies'} read`] : []),
});

export const productsSection = importSection({
  name: 'products',
  schema: z.array(ProductImport).max(10_000),
  check(products, file) {
    const families = new Set(((file.families ?? []) as Array<z.infer<typeof FamilyImport>>).map((f) => f.lookup_key));
    const issues: ImportIssue[] = duplicates(products.map((p) => p.key)).map((i) => ({
      path: filePath(['products', i, 'key']),
      message: 'Product keys must be unique within the file.',
    }));
    products.forEach((p, i) => {
      if (p.family !== null && !families.has(p.family)) {
        issues.push({ path: filePath(['products', i, 'family']), message: `No family with lookup_key ${p.family} in this file's families.` });
      }
    });
    return issues;
  },
  async apply(ctx, products, file): Promise<ProductWriteResult[]> {
    const families = new Map(((file.families ?? []) as Array<z.infer<typeof FamilyImport>>).map((f) => [f.lookup_key, familyOf(f)]));
    return applyEach('products', products, (p) => ({ label: `Product ${p.key}`, field: 'key' }), {}, (product) =>
      upsertProductByKey(ctx.command, { organizationId: ctx.organizationId, key: product.key, desired: desiredProduct(product, families) }),
    );
  },
  describe: (results: ProductWriteResult[]) =>
    results.map((r) => `${r.created ? 'created  ' : r.changed ? 'updated  ' : 'unchanged'} product ${r.key} (${r.id}), version ${r.version_number}`),
});
