import { z } from 'zod';
import { applyEach, filePath, importSection, type ImportIssue } from '../../platform/import/index.ts';
import { samePlace } from './domain/taxLedger.ts';
import { createTaxRate, loadStarterRates, loadTax, updateTaxRate, updateTaxSettings } from './taxCommands.ts';

const code = (pattern: RegExp, message: string) =>
  z
    .string()
    .trim()
    .transform((s) => s.toUpperCase())
    .pipe(z.string().regex(pattern, message));

const RateImport = z.strictObject({
  display_name: z.string().trim().min(1).max(50),
  description: z.string().trim().max(500).nullable().default(null),
  percentage: z.number().min(0).max(100),
  country: code(/^[A-Z]{2}$/, 'must be a two-letter ISO country code, such as DE'),
  state: code(/^[A-Z0-9]{1,3}$/, 'must be a region code of 1 to 3 letters or digits').nullable().default(null),
  postal_code_prefix: code(/^[A-Z0-9]{1,10}$/, 'must be 1 to 10 letters or digits').nullable().default(null),
  jurisdiction: z.string().trim().max(100).nullable().default(null),
  /** false: archive the active rate of this place, if any. */
  active: z.boolean().default(true),
});

const TaxImport = z.strictObject({
  settings: z.strictObject({ enabled: z.boolean().optional(), default_tax_behavior: z.enum(['inclusive', 'exclusive']).optional() }).optional(),
  /** Load the EU standard rates for countries the file and the organization give none (after `rates`). */
  eu_standard_rates: z.boolean().default(false),
  rates: z.array(RateImport).max(500).default([]),
});

type RateResult = { place: string; id: string | null; outcome: 'created' | 'replaced' | 'updated' | 'archived' | 'unchanged' };
export type TaxImportResult = { settings: 'updated' | 'unchanged'; rates: RateResult[]; starter: number };

const placeOf = (r: z.infer<typeof RateImport>) => [r.country, r.state, r.postal_code_prefix].filter(Boolean).join('/');

/**
 * The `tax` section: the settings, and the rates by place. A place's active rate is kept when
 * its percentage is the file's (its name and description updated), replaced (archived, and a new
 * one created) when the percentage differs, archived with `active: false`.
 */
export const taxSection = importSection({
  name: 'tax',
  schema: TaxImport,
  check(value) {
    const issues: ImportIssue[] = [];
    value.rates.forEach((rate, i) => {
      if (value.rates.findIndex((r) => samePlace(r, rate)) !== i) issues.push({ path: filePath(['tax', 'rates', i, 'country']), message: `Another rate of the file is for ${placeOf(rate)}.` });
    });
    return issues;
  },
  async apply(ctx, value): Promise<TaxImportResult> {
    const organizationId = ctx.organizationId;
    const before = (await loadTax(ctx.command.store, organizationId)).settings;
    const after = value.settings ? (await updateTaxSettings(ctx.command, { organizationId, ...value.settings })).settings : before;
    const rates = await applyEach('tax.rates', value.rates, (r) => ({ label: `Tax rate ${placeOf(r)}`, field: 'percentage' }), {}, async (item): Promise<RateResult> => {
      const place = placeOf(item);
      const current = (await loadTax(ctx.command.store, organizationId)).rates.find((r) => r.active && samePlace(r, item));
      if (!item.active) {
        if (!current) return { place, id: null, outcome: 'unchanged' };
        await updateTaxRate(ctx.command, { organizationId, id: current.id, active: false });
        return { place, id: current.id, outcome: 'archived' };
      }
      if (current && current.percentage === item.percentage) {
        const same = current.display_name === item.display_name && current.description === item.description;
        if (!same) await updateTaxRate(ctx.command, { organizationId, id: current.id, display_name: item.display_name, description: item.description });
        return { place, id: current.id, outcome: same ? 'unchanged' : 'updated' };
      }
      if (current) await updateTaxRate(ctx.command, { organizationId, id: current.id, active: false });
      const { active: _a, ...rate } = item;
      const created = await createTaxRate(ctx.command, { organizationId, rate: { ...rate, active: true } });
      return { place, id: created.id, outcome: current ? 'replaced' : 'created' };
    });
    const starter = value.eu_standard_rates ? (await loadStarterRates(ctx.command, { organizationId })).created.length : 0;
    const changed = before.enabled !== after.enabled || before.default_tax_behavior !== after.default_tax_behavior;
    return { settings: changed ? 'updated' : 'unchanged', rates, starter };
  },
  describe: (result: TaxImportResult) => [
    `${result.settings === 'updated' ? 'updated  ' : 'unchanged'} tax settings`,
    ...result.rates.map((r) => `${r.outcome.padEnd(9)} tax rate ${r.place}${r.id ? ` (${r.id})` : ''}`),
    ...(result.starter > 0 ? [`created   ${result.starter} EU standard VAT rates (check each)`] : []),
  ],
});
