import { EU_COUNTRIES } from './euVatRates.ts';

/**
 * VAT numbers: the format each country gives them (the part after the country prefix), as the
 * EU's VIES documents them, plus GB, CH and NO. A format check says a number could exist; only
 * the issuing country (VIES) says it does.
 */
const FORMATS: Readonly<Record<string, RegExp>> = {
  AT: /^U\d{8}$/,
  BE: /^[01]\d{9}$/,
  BG: /^\d{9,10}$/,
  CY: /^\d{8}[A-Z]$/,
  CZ: /^\d{8,10}$/,
  DE: /^\d{9}$/,
  DK: /^\d{8}$/,
  EE: /^\d{9}$/,
  GR: /^\d{9}$/,
  ES: /^(?:[A-Z]\d{7}[A-Z0-9]|\d{8}[A-Z])$/,
  FI: /^\d{8}$/,
  FR: /^[A-HJ-NP-Z0-9]{2}\d{9}$/,
  HR: /^\d{11}$/,
  HU: /^\d{8}$/,
  IE: /^(?:\d{7}[A-W][A-I]?|\d[A-Z+*]\d{5}[A-W])$/,
  IT: /^\d{11}$/,
  LT: /^(?:\d{9}|\d{12})$/,
  LU: /^\d{8}$/,
  LV: /^\d{11}$/,
  MT: /^\d{8}$/,
  NL: /^\d{9}B\d{2}$/,
  PL: /^\d{10}$/,
  PT: /^\d{9}$/,
  RO: /^[1-9]\d{1,9}$/,
  SE: /^\d{10}01$/,
  SI: /^\d{8}$/,
  SK: /^\d{10}$/,
  GB: /^(?:\d{9}|\d{12}|GD[0-4]\d{2}|HA[5-9]\d{2})$/,
  CH: /^E\d{9}(?:MWST|TVA|IVA)?$/,
  NO: /^\d{9}(?:MVA)?$/,
};

/** The prefix a VAT number carries: the country code, except Greece's EL. */
export const vatPrefix = (country: string): string => (country === 'GR' ? 'EL' : country);

/** EL is Greece's VAT prefix; GR, its ISO code, is taken too and written as EL. */
const countryOfPrefix = (prefix: string): string | null => {
  const country = prefix === 'EL' ? 'GR' : prefix;
  return country in FORMATS ? country : null;
};

/** Stripe's tax id types for the countries we check. */
export const taxIdType = (country: string): string =>
  EU_COUNTRIES.has(country) ? 'eu_vat' : country === 'GB' ? 'gb_vat' : country === 'CH' ? 'ch_vat' : 'no_vat';

export const supportsTaxIds = (country: string): boolean => country in FORMATS;

export type ParsedTaxId = { type: string; country: string; /** With its prefix, as Stripe keeps `eu_vat`: `DE123456789`, `EL…`. */ value: string; /** Without the prefix: what VIES asks for. */ number: string };

/**
 * A VAT number as a buyer types it (spaces, dots, dashes, with or without its country prefix),
 * normalised and checked against its country's format; null when it does not fit. The prefix, if
 * there is one, says the country; otherwise it is the buyer's country.
 */
export function parseTaxId(raw: string, buyerCountry: string): ParsedTaxId | null {
  const compact = raw.toUpperCase().replace(/[\s.\-/]/g, '');
  if (compact === '' || compact.length > 20) return null;
  let country: string | null = null;
  let number = compact;
  const prefixed = countryOfPrefix(compact.slice(0, 2));
  if (prefixed && FORMATS[prefixed]!.test(compact.slice(2))) {
    country = prefixed;
    number = compact.slice(2);
  } else if (prefixed && !FORMATS[buyerCountry]?.test(compact)) {
    // A known prefix whose number does not fit its country.
    return null;
  } else {
    country = buyerCountry;
  }
  const format = FORMATS[country];
  if (!format || !format.test(number)) return null;
  return { type: taxIdType(country), country, value: `${country === 'CH' ? 'CH' : vatPrefix(country)}${number}`, number };
}
