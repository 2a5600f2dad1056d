import { describe, expect, it } from 'vitest';
import type { CustomerTaxDetails } from '../../platform/domain/index.ts';
import { decideTax, matchingRate, type TaxInputs } from '../../modules/tax/domain/taxRules.ts';
import type { TaxRate } from '../../modules/tax/domain/taxLedger.ts';

const rate = (id: string, country: string, percentage: number, place: Partial<Pick<TaxRate, 'state' | 'postal_code_prefix' | 'active'>> = {}): TaxRate => ({
  id,
  object: 'tax_rate',
  display_name: 'VAT',
  description: null,
  percentage,
  country,
  state: place.state ?? null,
  postal_code_prefix: place.postal_code_prefix ?? null,
  jurisdiction: country,
  active: place.active ?? true,
  tax_type: 'vat',
  created: 1,
});

const rates = [
  rate('txr_de', 'DE', 19),
  rate('txr_fr', 'FR', 20),
  rate('txr_fr_corsica', 'FR', 13, { postal_code_prefix: '20' }),
  rate('txr_es', 'ES', 21),
  rate('txr_es_canarias', 'ES', 7, { state: 'CN' }),
  rate('txr_es_38', 'ES', 3, { state: 'CN', postal_code_prefix: '38' }),
  rate('txr_it_old', 'IT', 21, { active: false }),
  rate('txr_it', 'IT', 22),
  rate('txr_gb', 'GB', 20),
  rate('txr_ch_zero', 'CH', 0),
];

const buyer = (country: string, more: Partial<CustomerTaxDetails> & { postal_code?: string; state?: string } = {}): CustomerTaxDetails => ({
  address: { country, postal_code: more.postal_code ?? null, state: more.state ?? null },
  business_name: more.business_name ?? null,
  tax_id: more.tax_id ?? null,
  tax_exempt: more.tax_exempt ?? 'none',
});

const vat = (country: string, value: string): CustomerTaxDetails['tax_id'] => ({ type: 'eu_vat', value, country, verification: 'unverified' });

const inputs = (customer: CustomerTaxDetails | null, more: Partial<TaxInputs> = {}): TaxInputs => ({
  settings: { enabled: true, default_tax_behavior: 'exclusive' },
  originCountry: 'DE',
  rates,
  taxBehavior: 'unspecified',
  customer,
  ...more,
});

describe('decideTax: the EU rules over the seller\'s rate table', () => {
  it('charges a consumer in another EU country that country\'s rate (destination principle)', () => {
    expect(decideTax(inputs(buyer('FR')))).toEqual({
      tax_rate: { id: 'txr_fr', display_name: 'VAT', percentage: 20, country: 'FR', state: null, jurisdiction: 'FR' },
      percentage: 20,
      behavior: 'exclusive',
      taxability_reason: 'standard_rated',
      calculated_by: 'rate_table',
    });
  });

  it('does not collect in an EU country the seller has no rate for', () => {
    expect(decideTax(inputs(buyer('PL')))).toMatchObject({ tax_rate: null, percentage: 0, taxability_reason: 'not_collecting' });
  });

  it('reverse-charges a business with a VAT number of another EU country', () => {
    expect(decideTax(inputs(buyer('FR', { business_name: 'Acme SARL', tax_id: vat('FR', 'FR40303265045') })))).toEqual({
      tax_rate: null,
      percentage: 0,
      behavior: 'exclusive',
      taxability_reason: 'reverse_charge',
      calculated_by: 'rate_table',
    });
  });

  it('charges a business in the seller\'s own country its rate', () => {
    expect(decideTax(inputs(buyer('DE', { tax_id: vat('DE', 'DE123456789') })))).toMatchObject({ percentage: 19, taxability_reason: 'standard_rated' });
  });

  it('does not reverse-charge when the seller\'s origin is unknown or outside the EU', () => {
    expect(decideTax(inputs(buyer('FR', { tax_id: vat('FR', 'FR40303265045') }), { originCountry: null }))).toMatchObject({ percentage: 20 });
    expect(decideTax(inputs(buyer('FR', { tax_id: vat('FR', 'FR40303265045') }), { originCountry: 'GB' }))).toMatchObject({ percentage: 20 });
  });

  it('lets the table decide outside the EU: a rate, a zero rate, or none', () => {
    expect(decideTax(inputs(buyer('GB', { tax_id: { type: 'gb_vat', value: 'GB123456789', country: 'GB', verification: 'unverified' } })))).toMatchObject({ percentage: 20, taxability_reason: 'standard_rated' });
    expect(decideTax(inputs(buyer('CH')))).toMatchObject({ percentage: 0, taxability_reason: 'zero_rated', tax_rate: { id: 'txr_ch_zero' } });
    expect(decideTax(inputs(buyer('US', { state: 'CA', postal_code: '94103' })))).toMatchObject({ percentage: 0, taxability_reason: 'not_collecting' });
  });

  it('prefers a postal-prefix rate to a region\'s, and a region\'s to the country\'s', () => {
    expect(decideTax(inputs(buyer('FR', { postal_code: '20000' })))?.tax_rate?.id).toBe('txr_fr_corsica');
    expect(decideTax(inputs(buyer('FR', { postal_code: '75001' })))?.tax_rate?.id).toBe('txr_fr');
    expect(decideTax(inputs(buyer('ES', { state: 'CN', postal_code: '35001' })))?.tax_rate?.id).toBe('txr_es_canarias');
    expect(decideTax(inputs(buyer('ES', { state: 'CN', postal_code: '38001' })))?.tax_rate?.id).toBe('txr_es_38');
    expect(decideTax(inputs(buyer('ES', { postal_code: '38001' })))?.tax_rate?.id).toBe('txr_es');
  });

  it('ignores archived rates', () => {
    expect(matchingRate(rates, { country: 'IT', postal_code: null, state: null })?.id).toBe('txr_it');
    expect(matchingRate([rates[6]!], { country: 'IT', postal_code: null, state: null })).toBeNull();
  });

  it('takes the price\'s behaviour, or the settings\' default for `unspecified`', () => {
    expect(decideTax(inputs(buyer('FR'), { taxBehavior: 'inclusive' }))?.behavior).toBe('inclusive');
    expect(decideTax(inputs(buyer('FR'), { settings: { enabled: true, default_tax_behavior: 'inclusive' } }))?.behavior).toBe('inclusive');
    expect(decideTax(inputs(buyer('FR'), { settings: { enabled: true, default_tax_behavior: 'inclusive' }, taxBehavior: 'exclusive' }))?.behavior).toBe('exclusive');
  });

  it('is null when the seller does not collect tax, or no address is known yet', () => {
    expect(decideTax(inputs(buyer('FR'), { settings: { enabled: false, default_tax_behavior: 'exclusive' } }))).toBeNull();
    expect(decideTax(inputs(null))).toBeNull();
    expect(decideTax(inputs({ ...buyer('FR'), address: null }))).toBeNull();
  });
});
