/**
 * Money as people read it, one way everywhere (hosted checkout, dashboard, emails, receipts, CLI):
 * Intl's currency style in the reader's locale, with the currency's own minor units (JPY none,
 * EUR two, BHD three, as ISO 4217 and Intl set them). Pure: the dashboard and the checkout page's
 * script bundle this very file.
 */

const formats = new Map<string, Intl.NumberFormat>();

function numberFormat(locale: string, currency: string): Intl.NumberFormat {
  const key = `${locale}|${currency}`;
  let format = formats.get(key);
  if (!format) {
    format = new Intl.NumberFormat(locale, { style: 'currency', currency });
    formats.set(key, format);
  }
  return format;
}

/** A locale Intl takes, else English: a browser's odd `navigator.language` never changes the format's shape. */
function usableLocale(locale: string | undefined): string {
  if (!locale) return 'en';
  try {
    return Intl.NumberFormat.supportedLocalesOf([locale]).length > 0 ? locale : 'en';
  } catch {
    return 'en';
  }
}

/** The number of minor-unit digits of a currency (2 for a code Intl does not know). */
export function currencyDigits(currency: string): number {
  try {
    return numberFormat('en', currency.toUpperCase()).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/**
 * Minor units as an exact decimal string (`-1234.05` for -123405 cents): integer arithmetic on
 * the digits, so twelve-digit amounts never go through a binary fraction.
 */
export function minorToDecimal(minor: number, digits: number): string {
  const sign = minor < 0 ? '-' : '';
  const abs = String(Math.abs(Math.trunc(minor)));
  if (digits === 0) return `${sign}${abs}`;
  const padded = abs.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** `€5.00` (en), `5,00 €` (de), `¥500`, `BHD 1.250`; a code Intl does not know reads `5.00 XYZ`. */
export function formatMoney(minor: number, currency: string, locale?: string): string {
  const code = currency.toUpperCase();
  let format: Intl.NumberFormat;
  try {
    format = numberFormat(usableLocale(locale), code);
  } catch {
    return `${minorToDecimal(minor, 2)} ${code}`;
  }
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  // A decimal string is formatted exactly (Intl.NumberFormat v3); the type takes numbers only.
  return format.format(minorToDecimal(minor, digits) as unknown as number);
}
