import { PageLinksSchema, PageMetaSchema } from '../../../platform/http/index.ts';
import { z } from 'zod';
import { decimalInteger } from '../../../platform/http/index.ts';

/** Largest page of the product list: bigger pages answer 422 rather than being clipped silently. */
export const MAX_PER_PAGE = 500;
export const DEFAULT_PER_PAGE = 250;

const Family = z
  .object({ id: z.string(), name: z.string(), lookup_key: z.string() })
  .describe('The product family.');

export const Feature = z
  .object({
    id: z.string().describe('Stable identifier of the feature within the product.'),
    name: z.string(),
    description: z.string().nullable(),
    value: z.union([z.string(), z.number(), z.boolean()]).nullable().describe('A flag, a limit or a label.'),
  })
  .describe('A feature record.');

export const Twin = z
  .object({
    provider: z.string().describe('The linked system, e.g. `stripe`.'),
    external_id: z.string().describe("The product's id in that system."),
  })
  .describe('A linked provider record of the product.');

export const Charge = z.object({
  id: z.string(),
  type: z.literal('flat').describe('A fixed amount per invoice interval.'),
  amount: z.number().int().describe('Minor units of currency_code (cents).'),
  currency_code: z.string().describe('ISO 4217.'),
});

const timestamp = z.number().int().nullable().describe('Unix seconds.');

/** Exactly the list fields of the spec, in its order. */
export const ProductListItem = z.object({
  id: z.string().describe('Product route key (used as {product} in paths).'),
  name: z.string().nullable(),
  display_name: z.string().nullable(),
  description: z.string().nullable(),
  family: Family.nullable(),
  version_number: z.number().int().nullable().describe('Version of the catalog record: +1 on every change.'),
  status: z.enum(['active', 'archived']).nullable(),
  published_at: timestamp,
  archived_at: timestamp,
});

export const Product = z.object({
  id: ProductListItem.shape.id,
  name: z.string().nullable(),
  display_name: z.string().nullable(),
  description: z.string().nullable(),
  created_at: timestamp,
  updated_at: timestamp,
  family: Family.nullable(),
  version_number: ProductListItem.shape.version_number,
  features: z.array(Feature),
  twins: z.array(Twin),
  status: ProductListItem.shape.status,
  published_at: timestamp,
  archived_at: timestamp,
});

export const PlanResource = z.object({
  id: z.string().describe('Plan route key.'),
  object: z.literal('plan'),
  status: z.enum(['active']).nullable(),
  type: z.enum(['recurring', 'one_time']).nullable(),
  display_name: z.string(),
  description: z.string(),
  name: z.string().describe('Unique within the product; offers and imports refer to a plan by it.'),
  renew_interval: z.string().nullable().describe('ISO 8601 duration, e.g. P1M; null when the plan does not renew.'),
  billing_anchor: z.enum(['anniversary']),
  invoice_interval: z.string().describe('ISO 8601 duration.'),
  currency_code: z.string(),
  currency_symbol: z.string(),
  charges: z.array(Charge),
  tax_behavior: z.enum(['inclusive', 'exclusive', 'unspecified']).describe("Whether the prices include tax; `unspecified`: the tax settings' default_tax_behavior."),
});

export const ProductPage = z.object({
  data: z.array(ProductListItem),
  links: PageLinksSchema,
  meta: PageMetaSchema,
});

export const ProductListQuery = z.object({
  per_page: decimalInteger(1, MAX_PER_PAGE)
    .optional()
    .describe(`Products per page: 1 to ${MAX_PER_PAGE}, default ${DEFAULT_PER_PAGE}.`),
  page: decimalInteger(1, 1_000_000_000).optional().describe('1-based page number, default 1.'),
  api_token: z.string().optional().describe('Deprecated: use the Authorization header.'),
});

/** A product as the management routes answer it (the seller's edit form reads it). */
export const ManagedProduct = z.object({
  id: z.string().describe('Route key.'),
  key: z.string(),
  name: z.string().nullable(),
  display_name: z.string().nullable(),
  description: z.string().nullable(),
  family: z.object({ id: z.string(), name: z.string(), lookup_key: z.string() }).nullable(),
  features: z.array(z.object({ id: z.string(), name: z.string(), description: z.string().nullable(), value: z.union([z.string(), z.number(), z.boolean()]).nullable() })),
  twins: z.array(z.object({ provider: z.string(), external_id: z.string() })),
  status: z.enum(['active', 'archived']),
  version_number: z.number().int(),
  published_at: z.number().int().nullable(),
  archived_at: z.number().int().nullable(),
  plans: z.array(z.record(z.string(), z.unknown())),
});
