/**
 * The EU-27 standard VAT rates, as a starting point a seller loads and then checks: rates change
 * (several countries moved theirs in 2024 and 2025), reduced rates are not here, and the seller
 * stays responsible for what they charge. Dated so the dashboard and docs can say how old it is.
 */
export const EU_STANDARD_RATES_AS_OF = '2025-08-01';

/** Country (ISO 3166-1 alpha-2; Greece is GR here, EL only in VAT numbers) → standard rate in percent. */
export const EU_STANDARD_RATES: Readonly<Record<string, number>> = Object.freeze({
  AT: 20,
  BE: 21,
  BG: 20,
  CY: 19,
  CZ: 21,
  DE: 19,
  DK: 25,
  EE: 24,
  ES: 21,
  FI: 25.5,
  FR: 20,
  GR: 24,
  HR: 25,
  HU: 27,
  IE: 23,
  IT: 22,
  LT: 21,
  LU: 17,
  LV: 21,
  MT: 18,
  NL: 21,
  PL: 23,
  PT: 23,
  RO: 21,
  SE: 25,
  SI: 22,
  SK: 23,
});

export const EU_COUNTRIES: ReadonlySet<string> = new Set(Object.keys(EU_STANDARD_RATES));

export const isEuCountry = (country: string | null | undefined): boolean => country !== null && country !== undefined && EU_COUNTRIES.has(country);
