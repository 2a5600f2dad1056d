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

/**
 * An integer in a path or a query string, written in decimal digits. z.coerce.number() reads
 * every numeric string JavaScript does (`0x1`, `1e0`, `1.0`, `007`), which would give one id many
 * URLs and let a typo read as a valid number. Anything but decimal digits (a sign allowed, no
 * leading zero) gets Laravel's "must be an integer"; then the field's bounds apply, so 20 digits
 * read "must not be greater".
 */
export const decimalInteger = (min: number, max: number) =>
  z
    .string()
    .transform((text, ctx) => {
      if (/^-?(0|[1-9][0-9]*)$/.test(text)) return Number(text);
      ctx.addIssue({ code: 'invalid_type', expected: 'int', input: text });
      return z.NEVER;
    })
    .pipe(z.number().int().min(min).max(max));
