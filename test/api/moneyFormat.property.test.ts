import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { currencyDigits, formatMoney, minorToDecimal } from '../../platform/domain/index.ts';
import { MAX_AMOUNT } from '../../platform/domain/index.ts';

const CURRENCIES = { JPY: 0, KRW: 0, CLP: 0, EUR: 2, USD: 2, GBP: 2, BHD: 3, KWD: 3, JOD: 3 } as const;
const LOCALES = ['en', 'en-US', 'de', 'nl', 'fr', 'ja', 'ar-BH', 'hi-IN'];

const anyCurrency = fc.constantFrom(...(Object.keys(CURRENCIES) as (keyof typeof CURRENCIES)[]));
const anyAmount = fc.integer({ min: -MAX_AMOUNT, max: MAX_AMOUNT });

/** Reads a formatted amount back through Intl's own parts: the integer digits and the fraction digits. */
function partsOf(minor: number, currency: string, locale: string) {
  const format = new Intl.NumberFormat(locale, { style: 'currency', currency, numberingSystem: 'latn' });
  const parts = format.formatToParts(minorToDecimal(minor, currencyDigits(currency)) as unknown as number);
  return {
    integer: parts.filter((p) => p.type === 'integer').map((p) => p.value).join(''),
    fraction: parts.find((p) => p.type === 'fraction')?.value ?? '',
  };
}

describe('formatMoney', () => {
  it('uses the currency’s own minor units: no decimals for JPY, two for EUR, three for BHD', () => {
    expect(formatMoney(500, 'JPY')).toBe('¥500');
    expect(formatMoney(500, 'EUR')).toBe('€5.00');
    expect(formatMoney(1250, 'BHD')).toBe('BHD\u00a01.250');
    expect(formatMoney(5, 'eur')).toBe('€0.05');
    expect(formatMoney(500, 'EUR', 'de')).toBe('5,00\u00a0€');
    expect(formatMoney(MAX_AMOUNT, 'EUR')).toBe('€9,999,999,999.99');
    expect(formatMoney(500, 'XYZ')).toBe('XYZ\u00a05.00');
  });

  it('falls back to English for a locale Intl does not take, never to "5.00 EUR"', () => {
    expect(formatMoney(500, 'EUR', 'not a locale!')).toBe('€5.00');
    expect(formatMoney(500, 'EUR', '')).toBe('€5.00');
  });

  it('writes every amount exactly: the integer and fraction digits read back are the minor units', () => {
    fc.assert(
      fc.property(anyAmount, anyCurrency, fc.constantFrom(...LOCALES), (minor, currency, locale) => {
        const digits = CURRENCIES[currency];
        expect(currencyDigits(currency)).toBe(digits);
        const { integer, fraction } = partsOf(minor, currency, locale);
        expect(fraction.length).toBe(digits);
        expect(Number(`${integer}${fraction}`)).toBe(Math.abs(minor));
        // formatMoney writes what those parts say (locales with their own digits aside).
        if (!['ar-BH', 'hi-IN'].includes(locale)) {
          const shown = formatMoney(minor, currency, locale).replace(/\D/g, '');
          expect(Number(shown)).toBe(Math.abs(minor));
        }
      }),
      { numRuns: 500 },
    );
  });

  it('minorToDecimal is the exact decimal of the minor units', () => {
    fc.assert(
      fc.property(anyAmount, fc.constantFrom(0, 2, 3), (minor, digits) => {
        const decimal = minorToDecimal(minor, digits);
        const [whole, frac = ''] = decimal.replace('-', '').split('.');
        expect(frac.length).toBe(digits);
        expect(BigInt(`${whole}${frac}`)).toBe(BigInt(Math.abs(minor)));
        expect(decimal.startsWith('-')).toBe(minor < 0);
      }),
    );
  });
});
