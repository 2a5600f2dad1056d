import type { z } from 'zod';
import type { ProductDoc } from './catalogProjection.ts';
import type { Product } from './http/catalogSchemas.ts';

/** A product as its GET answers it, and as event webhooks carry it. */
export const productResource = (p: ProductDoc): z.infer<typeof Product> => ({
  id: p.route_key,
  name: p.name,
  display_name: p.display_name,
  description: p.description,
  created_at: p.created_at,
  updated_at: p.updated_at,
  family: p.family,
  version_number: p.version_number,
  features: p.features,
  twins: p.twins,
  status: p.status,
  published_at: p.published_at,
  archived_at: p.archived_at,
});
