import { z } from 'zod';

const Unix = z.number().int().describe('Unix seconds.');

export const DeliveredFileSchema = z.object({
  id: z.string(),
  filename: z.string(),
  size: z.number().int(),
  type: z.string(),
  sha256: z.string(),
  download_url: z.string().describe('A path on this service, signed for this buyer; works until expires_at (15 minutes).'),
  expires_at: Unix,
});

export const DeliveredKeySchema = z.object({
  id: z.string(),
  key: z.string(),
  status: z.string(),
  activation_limit: z.number().int().nullable(),
  activation_usage: z.number().int(),
  expires_at: Unix.nullable(),
});

export const DeliveredBenefitSchema = z.object({
  id: z.string().describe('The benefit (ben_…).'),
  grant_id: z.string(),
  type: z.enum(['file', 'license_key']),
  description: z.string(),
  files: z.array(DeliveredFileSchema),
  license_key: DeliveredKeySchema.nullable(),
});

export const PurchaseBenefitsSchema = z.object({
  pending: z.boolean().describe('A grant (or its key) is still being made: ask again in a moment.'),
  benefits: z.array(DeliveredBenefitSchema),
});
