import { z } from 'zod';
import { MAX_AMOUNT } from '../domain/money.ts';

/**
 * An amount in minor units as import files write it, with messages for the person editing the
 * file: `9.99` and `"999"` are the usual slips, and zod's own words ("expected int, received
 * number") tell them nothing about cents.
 */
export const minorUnits = (field: string) => {
  const message = `${field} must be an integer in minor units: 999 for 9.99`;
  return z
    .number({ error: message })
    .int({ error: message })
    .min(0, { error: `${field} must not be negative` })
    .max(MAX_AMOUNT, { error: `${field} must be at most ${MAX_AMOUNT} minor units` });
};

const currencies = new Set(Intl.supportedValuesOf('currency'));

/** An ISO 4217 code; `eur` is read as `EUR` (the code is the same), and stored upper case. */
export const currencyCode = z
  .string({ error: 'currency_code must be an ISO 4217 code such as EUR' })
  .trim()
  .transform((c) => c.toUpperCase())
  .pipe(
    z
      .string()
      .regex(/^[A-Z]{3}$/, 'Must be a three-letter ISO 4217 code, such as EUR.')
      .refine((c) => !/^[A-Z]{3}$/.test(c) || currencies.has(c), 'Unknown ISO 4217 currency code (EUR, USD, GBP…).'),
  );
