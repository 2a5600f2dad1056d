import { loadTax } from './taxCommands.ts';
import { formatOnlyVerifier, type TaxIdVerifier, viesVerifier } from './taxIdVerifier.ts';
import { parseTaxId, supportsTaxIds } from './domain/taxIds.ts';
import { decideTax, isReverseCharge, type TaxInputs } from './domain/taxRules.ts';
import type { AppliedTax, CustomerTaxDetails, TaxBehavior } from '../../platform/domain/index.ts';
import { invalid } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import type { Config, Services } from '../../platform/runtime/index.ts';
import { loadOrganization } from '../identity/index.ts';

/** Who computes the tax of a sale: the seller's rate table by default, an adapter (Stripe Tax) when configured. */
export type TaxCalculator = { name: string; calculate(inputs: TaxInputs & { now: number }): Promise<AppliedTax | null> };

export const rateTableCalculator: TaxCalculator = { name: 'rate_table', calculate: async (inputs) => decideTax(inputs) };

export type TaxSettingsSummary = {
  enabled: boolean;
  default_tax_behavior: TaxBehavior;
  origin_country: string | null;
  /** Countries with an active rate. */
  countries: string[];
  /** Countries where a rate depends on the postal code or region: the checkout asks for it. */
  postal_code_countries: string[];
};

async function originCountry(store: EventStore, organizationId: string): Promise<string | null> {
  return (await loadOrganization(store, organizationId))?.address?.country ?? null;
}

export async function taxSettingsFor(store: EventStore, organizationId: string): Promise<TaxSettingsSummary> {
  const [tax, origin] = await Promise.all([loadTax(store, organizationId), originCountry(store, organizationId)]);
  const active = tax.rates.filter((r) => r.active);
  return {
    ...tax.settings,
    origin_country: origin,
    countries: [...new Set(active.map((r) => r.country))].sort(),
    postal_code_countries: [...new Set(active.filter((r) => r.state !== null || r.postal_code_prefix !== null).map((r) => r.country))].sort(),
  };
}

/**
 * The tax of a sale to this buyer, decided on the seller's tax stream as it is now. null: the
 * seller does not collect tax, or no address is known yet (the checkout asks before payment).
 */
export async function calculateTax(
  ctx: CommandContext | { store: EventStore },
  input: { organizationId: string; taxBehavior: TaxBehavior | 'unspecified'; customer: CustomerTaxDetails | null; now: number },
  calculator: TaxCalculator = rateTableCalculator,
): Promise<AppliedTax | null> {
  const tax = await loadTax(ctx.store, input.organizationId);
  if (!tax.settings.enabled || !input.customer?.address) return null;
  return calculator.calculate({
    settings: tax.settings,
    originCountry: await originCountry(ctx.store, input.organizationId),
    rates: tax.rates,
    taxBehavior: input.taxBehavior,
    customer: input.customer,
    now: input.now,
  });
}

const regionNames = new Intl.DisplayNames(['en'], { type: 'region', fallback: 'code' });

/** An ISO 3166-1 alpha-2 code the platform knows a name for (so `ZZ` or `XX` are refused). */
export function isCountryCode(code: string): boolean {
  return /^[A-Z]{2}$/.test(code) && !['ZZ', 'EU', 'UN', 'EZ', 'QO'].includes(code) && regionNames.of(code) !== code;
}

/** The verifier configured: VIES when TAX_ID_VERIFIER=vies, the format check otherwise. */
export function taxIdVerifierFor(config: Pick<Config, 'TAX_ID_VERIFIER' | 'VIES_URL' | 'VIES_TIMEOUT_MS' | 'VIES_ALLOW_HOSTS'>): TaxIdVerifier {
  return config.TAX_ID_VERIFIER === 'vies' ? viesVerifier({ baseUrl: config.VIES_URL, timeoutMs: config.VIES_TIMEOUT_MS, allowHosts: config.VIES_ALLOW_HOSTS }) : formatOnlyVerifier;
}

const blank = (s: string | null | undefined): string | null => (s === null || s === undefined || s.trim() === '' ? null : s.trim());

/**
 * What a buyer told the checkout, checked and normalised into Stripe's `customer_details`:
 * 422 `invalid_country`, `postal_code_required` (where a seller's rate depends on it) or
 * `invalid_tax_id` (not of its country's format, or VIES says it does not exist). A business
 * in another EU country than the seller's, with a well-formed VAT number, is `tax_exempt: reverse`.
 */
export async function resolveCustomerTaxDetails(
  services: Pick<Services, 'store' | 'config'>,
  input: { organizationId: string; country: string; postal_code?: string | null; state?: string | null; business_name?: string | null; tax_id?: string | null },
  verifier: TaxIdVerifier = taxIdVerifierFor(services.config),
): Promise<CustomerTaxDetails> {
  const country = input.country.trim().toUpperCase();
  if (!isCountryCode(country)) throw invalid('invalid_country', 'Choose a country.', 'country');
  const settings = await taxSettingsFor(services.store, input.organizationId);
  const postal = blank(input.postal_code)?.toUpperCase() ?? null;
  if (postal !== null && !/^[A-Z0-9][A-Z0-9 -]{0,11}$/.test(postal)) throw invalid('invalid_postal_code', 'Enter a valid postal code.', 'postal_code');
  if (postal === null && settings.enabled && settings.postal_code_countries.includes(country)) {
    throw invalid('postal_code_required', 'Enter your postal code: the tax depends on it.', 'postal_code');
  }
  const state = blank(input.state)?.toUpperCase() ?? null;
  if (state !== null && !/^[A-Z0-9]{1,3}$/.test(state)) throw invalid('invalid_state', 'Enter the region as its code, such as BY.', 'state');
  const businessName = blank(input.business_name);
  if (businessName !== null && businessName.length > 200) throw invalid('invalid_business_name', 'The business name may be at most 200 characters.', 'business_name');
  let taxId: CustomerTaxDetails['tax_id'] = null;
  const rawTaxId = blank(input.tax_id);
  if (rawTaxId !== null) {
    const parsed = parseTaxId(rawTaxId, country);
    if (!parsed) {
      throw invalid(
        'invalid_tax_id',
        supportsTaxIds(country) ? 'This VAT number does not have the format of its country.' : 'VAT numbers can be entered for EU countries, the UK, Switzerland and Norway.',
        'tax_id',
      );
    }
    const verification = await verifier.verify(parsed);
    if (verification === 'invalid') throw invalid('invalid_tax_id', 'This VAT number is not registered (checked with VIES).', 'tax_id');
    taxId = { type: parsed.type, value: parsed.value, country: parsed.country, verification };
  }
  return {
    address: { country, postal_code: postal, state },
    business_name: businessName,
    tax_id: taxId,
    tax_exempt: isReverseCharge(settings.origin_country, taxId) ? 'reverse' : 'none',
  };
}
