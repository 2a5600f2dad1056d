import { describe, expect, it } from 'vitest';
import { parseTaxId } from '../../modules/tax/domain/taxIds.ts';

describe('parseTaxId: VAT numbers by their country\'s format', () => {
  it.each([
    ['DE 123 456 789', 'DE', { type: 'eu_vat', country: 'DE', value: 'DE123456789', number: '123456789' }],
    ['123456789', 'DE', { type: 'eu_vat', country: 'DE', value: 'DE123456789', number: '123456789' }],
    ['fr 40.303.265.045', 'FR', { type: 'eu_vat', country: 'FR', value: 'FR40303265045', number: '40303265045' }],
    ['ATU12345678', 'DE', { type: 'eu_vat', country: 'AT', value: 'ATU12345678', number: 'U12345678' }],
    ['EL123456789', 'GR', { type: 'eu_vat', country: 'GR', value: 'EL123456789', number: '123456789' }],
    ['GR123456789', 'GR', { type: 'eu_vat', country: 'GR', value: 'EL123456789', number: '123456789' }],
    ['123456789', 'GR', { type: 'eu_vat', country: 'GR', value: 'EL123456789', number: '123456789' }],
    ['NL123456789B01', 'NL', { type: 'eu_vat', country: 'NL', value: 'NL123456789B01', number: '123456789B01' }],
    ['ESB12345678', 'ES', { type: 'eu_vat', country: 'ES', value: 'ESB12345678', number: 'B12345678' }],
    ['IE1234567WA', 'IE', { type: 'eu_vat', country: 'IE', value: 'IE1234567WA', number: '1234567WA' }],
    ['BE0123456789', 'BE', { type: 'eu_vat', country: 'BE', value: 'BE0123456789', number: '0123456789' }],
    ['SE123456789001', 'SE', { type: 'eu_vat', country: 'SE', value: 'SE123456789001', number: '123456789001' }],
    ['GB 123 4567 89', 'GB', { type: 'gb_vat', country: 'GB', value: 'GB123456789', number: '123456789' }],
    ['CHE-123.456.789 MWST', 'CH', { type: 'ch_vat', country: 'CH', value: 'CHE123456789MWST', number: 'E123456789MWST' }],
    ['NO123456789MVA', 'NO', { type: 'no_vat', country: 'NO', value: 'NO123456789MVA', number: '123456789MVA' }],
  ])('%s (buyer in %s)', (raw, country, parsed) => {
    expect(parseTaxId(raw, country)).toEqual(parsed);
  });

  it.each([
    ['DE12345678', 'DE'], // one digit short
    ['12345678', 'DE'],
    ['ATU1234567', 'AT'],
    ['BE2123456789', 'BE'], // Belgian numbers start with 0 or 1
    ['NL123456789C01', 'NL'],
    ['SE123456789002', 'SE'],
    ['XX123456789', 'DE'],
    ['123456789', 'US'], // no format known for the country
    ['', 'DE'],
    ['DE1234567890123456789012', 'DE'],
  ])('refuses %s (buyer in %s)', (raw, country) => {
    expect(parseTaxId(raw, country)).toBeNull();
  });
});
