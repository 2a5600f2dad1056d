import { z } from 'zod';

/** Every error body: Laravel's shape plus a machine-readable code. */
export const ErrorSchema = z.object({
  message: z.string(),
  code: z.string(),
  errors: z.record(z.string(), z.array(z.string())).optional(),
});

/** Spread into a protected route's schema: marks it as needing the bearer API key in the OpenAPI document. */
export const protectedRoute = { security: [{ bearer: [] }] } as const;

/** Route keys and ids in paths: short, printable, no slashes or dots (no traversal). */
export const RouteKey = z.string().min(1).max(128).regex(/^[A-Za-z0-9_-]+$/, 'must contain only letters, digits, - and _');
