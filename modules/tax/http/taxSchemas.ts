import { z } from 'zod';

const Unix = z.number().int();

/** Stripe's TaxRate, plus our `postal_code_prefix`. */
export const TaxRateSchema = z.object({
  id: z.string().describe('txr_…'),
  object: z.literal('tax_rate'),
  display_name: z.string().describe('What invoices and the checkout call the tax (VAT, MwSt, TVA).'),
  description: z.string().nullable(),
  percentage: z.number().describe('Percent, at most four decimals; never changes (archive the rate and create another).'),
  country: z.string().describe('ISO 3166-1 alpha-2.'),
  state: z.string().nullable().describe('A region code (ISO 3166-2 without the country); null: the whole country.'),
  postal_code_prefix: z.string().nullable().describe('Postal codes starting with this get the rate; null: any. The most specific active rate wins.'),
  jurisdiction: z.string().nullable(),
  active: z.boolean().describe('Archived rates (false) apply to no new sale; invoices keep the rate they were charged.'),
  tax_type: z.literal('vat'),
  created: Unix,
});

export const TaxSettingsSchema = z.object({
  enabled: z.boolean().describe('Whether tax is collected at checkout and on invoices.'),
  default_tax_behavior: z.enum(['inclusive', 'exclusive']).describe('For plans whose tax_behavior is `unspecified`: prices include the tax, or it is added on top.'),
  origin: z
    .object({ country: z.string().nullable(), vat_number: z.string().nullable() })
    .describe("The seller's country and VAT number, from the organization's settings: they decide reverse charge."),
  starter_rates_as_of: z.string().describe('The date of the EU standard rates POST /api/tax_rates/starter loads.'),
});

export const TaxSettingsBody = z
  .object({ enabled: z.boolean().optional(), default_tax_behavior: z.enum(['inclusive', 'exclusive']).optional() })
  .strict();

const Code = (pattern: RegExp, message: string) =>
  z
    .string()
    .trim()
    .transform((s) => s.toUpperCase())
    .pipe(z.string().regex(pattern, message));

export const NewTaxRateBody = z
  .object({
    display_name: z.string().trim().min(1).max(50),
    description: z.string().trim().max(500).nullable().optional(),
    percentage: z.number().min(0).max(100),
    country: Code(/^[A-Z]{2}$/, 'must be a two-letter ISO country code, such as DE'),
    state: Code(/^[A-Z0-9]{1,3}$/, 'must be a region code of 1 to 3 letters or digits').nullable().optional(),
    postal_code_prefix: Code(/^[A-Z0-9]{1,10}$/, 'must be 1 to 10 letters or digits').nullable().optional(),
    jurisdiction: z.string().trim().max(100).nullable().optional(),
    active: z.boolean().optional(),
  })
  .strict();

export const TaxRateUpdateBody = z
  .object({
    display_name: z.string().trim().min(1).max(50).optional(),
    description: z.string().trim().max(500).nullable().optional(),
    active: z.boolean().optional(),
  })
  .strict();

export const TaxRateId = z.string().regex(/^txr_[A-Za-z0-9]{1,64}$/, 'must be a tax rate id (txr_…)');
