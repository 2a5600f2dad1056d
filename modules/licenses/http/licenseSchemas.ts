import { z } from 'zod';

export const LicenseStatusSchema = z.enum(['inactive', 'active', 'expired', 'disabled']);

export const ActivationSchema = z.object({ id: z.string(), name: z.string(), created_at: z.number().int() });

/** A license key as the seller's routes show it (`key` only on the one key's route). */
export const LicenseKeySchema = z.object({
  id: z.string(),
  object: z.literal('license_key'),
  livemode: z.boolean(),
  grant_id: z.string(),
  benefit_id: z.string(),
  product_id: z.string(),
  customer_id: z.string(),
  display_key: z.string(),
  key: z.string().optional(),
  status: LicenseStatusSchema,
  /** The seller turned it off (routes disable/enable). */
  disabled_by_seller: z.boolean(),
  /** Its grant is revoked (refund, subscription no longer entitled, benefit deleted). */
  revoked: z.boolean(),
  activation_limit: z.number().int().nullable(),
  activation_usage: z.number().int(),
  activations: z.array(ActivationSchema),
  expires_at: z.number().int().nullable(),
  created: z.number().int(),
});
export type LicenseKey = z.infer<typeof LicenseKeySchema>;

/** What the buyer's pages show of a key: the key itself, in plain. */
export const LicenseKeyViewSchema = z.object({
  id: z.string(),
  grant_id: z.string(),
  key: z.string(),
  status: LicenseStatusSchema,
  activation_limit: z.number().int().nullable(),
  activation_usage: z.number().int(),
  expires_at: z.number().int().nullable(),
});
export type LicenseKeyView = z.infer<typeof LicenseKeyViewSchema>;

export const LicenseKeyIdParams = z.object({ id: z.string().max(100) });
