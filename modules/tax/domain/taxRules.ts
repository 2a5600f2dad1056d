import type { AppliedTax, CustomerTaxDetails, TaxBehavior } from '../../../platform/domain/index.ts';
import { isEuCountry } from './euVatRates.ts';
import type { TaxRate, TaxSettings } from './taxLedger.ts';

/**
 * Which of the seller's rates applies to a buyer, by the EU's rules for digital sales:
 * - B2C: the buyer's country's rate (destination principle, OSS), when the seller has one;
 *   otherwise `not_collecting`, 0 (a seller under the OSS threshold charges its own country's
 *   rate by entering it for those countries, or registers for OSS and enters theirs).
 * - B2B with a well-formed VAT number of another EU country than the seller's: reverse charge, 0.
 * - B2B in the seller's own country: its rate, as B2C.
 * - Outside the EU: the seller's table decides (a rate for that place, or not collecting).
 * A rate for a postal prefix beats one for a region, which beats the country's.
 */

export type TaxInputs = {
  settings: TaxSettings;
  /** The seller's country (identity settings), null when not set. */
  originCountry: string | null;
  rates: readonly TaxRate[];
  taxBehavior: TaxBehavior | 'unspecified';
  customer: CustomerTaxDetails | null;
};

export const RATE_TABLE = 'rate_table';

/** Whether an EU business buys across an EU border: it then accounts for the VAT itself. */
export function isReverseCharge(originCountry: string | null, taxId: CustomerTaxDetails['tax_id']): boolean {
  return taxId !== null && isEuCountry(originCountry) && isEuCountry(taxId.country) && taxId.country !== originCountry;
}

const normalisedPostal = (postal: string | null) => (postal ?? '').toUpperCase().replace(/[\s-]/g, '');

/** The active rate most specific to the address: postal prefix (longest first), then region, then country. */
export function matchingRate(rates: readonly TaxRate[], address: NonNullable<CustomerTaxDetails['address']>): TaxRate | null {
  const postal = normalisedPostal(address.postal_code);
  const state = address.state?.toUpperCase() ?? null;
  let best: { rate: TaxRate; score: number } | null = null;
  for (const rate of rates) {
    if (!rate.active || rate.country !== address.country) continue;
    if (rate.state !== null && rate.state !== state) continue;
    if (rate.postal_code_prefix !== null && !postal.startsWith(rate.postal_code_prefix)) continue;
    const score = (rate.postal_code_prefix?.length ?? 0) * 10 + (rate.state !== null ? 1 : 0) + (rate.postal_code_prefix !== null ? 1000 : 0);
    if (!best || score > best.score) best = { rate, score };
  }
  return best?.rate ?? null;
}

/** null: no tax on this sale's invoice (the seller does not collect, or no address is known yet). */
export function decideTax(inputs: TaxInputs): AppliedTax | null {
  const { settings, customer } = inputs;
  if (!settings.enabled || !customer?.address) return null;
  const behavior: TaxBehavior = inputs.taxBehavior === 'unspecified' ? settings.default_tax_behavior : inputs.taxBehavior;
  const none = (reason: AppliedTax['taxability_reason']): AppliedTax => ({ tax_rate: null, percentage: 0, behavior, taxability_reason: reason, calculated_by: RATE_TABLE });
  if (isReverseCharge(inputs.originCountry, customer.tax_id)) return none('reverse_charge');
  const rate = matchingRate(inputs.rates, customer.address);
  if (!rate) return none('not_collecting');
  return {
    tax_rate: { id: rate.id, display_name: rate.display_name, percentage: rate.percentage, country: rate.country, state: rate.state, jurisdiction: rate.jurisdiction },
    percentage: rate.percentage,
    behavior,
    taxability_reason: rate.percentage === 0 ? 'zero_rated' : 'standard_rated',
    calculated_by: RATE_TABLE,
  };
}
