import { z } from 'zod';

const Unix = z.number().int().describe('Unix seconds.');

/** A file id of modules/files (checked by its shape here: the file may be uploaded after). */
export const FileId = z.string().regex(/^file_[A-Za-z0-9]{1,64}$/, 'must be a file id (file_…)');
export const BenefitId = z.string().regex(/^ben_[A-Za-z0-9]{1,40}$/, 'must be a benefit id (ben_…)');
export const BenefitIdParams = z.object({ benefit: BenefitId });
export const ProductParams = z.object({ product: z.string().min(1).max(64).regex(/^[A-Za-z0-9_-]+$/, 'must be a product id') });

export const FileProperties = z.object({ files: z.array(FileId).min(1).max(50).describe('The files delivered, in this order.') }).strict();
export const LicenseKeyProperties = z
  .object({
    prefix: z.string().trim().min(1).max(20).regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, - and _').nullable().default(null).describe('Shown before the key.'),
    activation_limit: z.number().int().min(1).max(1000).nullable().default(null).describe('Instances at once; null: unlimited.'),
    expires_after_days: z.number().int().min(1).max(36500).nullable().default(null).describe('From the grant; null: never.'),
    bound_to: z.enum(['subscription', 'perpetual']).default('perpetual').describe('`subscription`: revoked when the subscription stops being entitled.'),
  })
  .strict();

export const Description = z.string().trim().min(1).max(280);
export const DEFAULT_KEY_PROPERTIES = { prefix: null, activation_limit: null, expires_after_days: null, bound_to: 'perpetual' } as const;

export const BenefitCreateBody = z.discriminatedUnion('type', [
  z.object({ type: z.literal('file'), description: Description, properties: FileProperties }).strict(),
  z.object({ type: z.literal('license_key'), description: Description, properties: LicenseKeyProperties.default(DEFAULT_KEY_PROPERTIES) }).strict(),
]);

/** Properties replace the benefit's whole (a file benefit's list of files, a key's terms). */
export const BenefitUpdateBody = z
  .object({ description: Description.optional(), properties: z.union([FileProperties, LicenseKeyProperties]).optional() })
  .strict();

export const BenefitListQuery = z.object({
    product: z.string().min(1).max(64).optional(),
    type: z.enum(['file', 'license_key']).optional(),
  });

export const GrantListQuery = z.object({
    customer: z.string().min(1).max(64).optional(),
    benefit: BenefitId.optional(),
    status: z.enum(['granted', 'revoked']).optional(),
  });

/** A benefit of a product: what the buyer receives on purchase (Polar's benefit, in Stripe's naming). */
export const BenefitSchema = z.object({
  id: z.string().describe('ben_…'),
  object: z.literal('benefit'),
  type: z.enum(['file', 'license_key']),
  description: z.string(),
  product_id: z.string(),
  properties: z.union([
    z.object({ files: z.array(z.string()) }),
    z.object({
      prefix: z.string().nullable(),
      activation_limit: z.number().int().nullable(),
      expires_after_days: z.number().int().nullable(),
      bound_to: z.enum(['subscription', 'perpetual']),
    }),
  ]),
  created: Unix,
});
export type BenefitObject = z.infer<typeof BenefitSchema>;

export const DeletedBenefitSchema = z.object({ id: z.string(), object: z.literal('benefit'), deleted: z.literal(true) });

/** A benefit granted to a customer, by a purchase or a subscription while entitled. */
export const BenefitGrantSchema = z.object({
  id: z.string().describe('bgr_…'),
  object: z.literal('benefit_grant'),
  benefit_id: z.string(),
  benefit_type: z.enum(['file', 'license_key']),
  product_id: z.string(),
  customer_id: z.string().describe('cus_…'),
  source: z.object({ type: z.enum(['checkout_session', 'subscription']), id: z.string() }),
  status: z.enum(['granted', 'revoked']),
  granted_at: Unix,
  revoked_at: Unix.nullable(),
  revoke_cause: z.enum(['refund', 'subscription.not_entitled', 'subscription.plan_changed', 'benefit.deleted']).nullable(),
});
export type BenefitGrantObject = z.infer<typeof BenefitGrantSchema>;
