/** CSV as RFC 4180 writes it, safe to open in a spreadsheet. Pure. */

export type CsvValue = string | number | null | undefined;

/** A cell holding one of these is quoted, its quotes doubled (RFC 4180, 2.6 and 2.7). */
const NEEDS_QUOTES = /[",\r\n]/;

/**
 * A spreadsheet reads a cell starting with = + - @ tab or CR as a formula (`=HYPERLINK(…)` typed
 * as a buyer's name would run on the seller's machine): such a cell gets a leading apostrophe,
 * which spreadsheets show as text. A plain decimal (`-12.34`, a credit note's amount) is read as
 * a number, and nothing in it can run: it stays as it is, so sums over it work.
 */
export function csvCell(value: CsvValue): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : csvText(String(value));
  return PLAIN_DECIMAL.test(value) ? value : csvText(value);
}

const PLAIN_DECIMAL = /^-?\d+(\.\d+)?$/;

function csvText(text: string): string {
  if (text === '') return text;
  const first = text.charCodeAt(0);
  // = + - @ tab CR
  const formula = first === 61 || first === 43 || first === 45 || first === 64 || first === 9 || first === 13;
  const guarded = formula ? `'${text}` : text;
  return NEEDS_QUOTES.test(guarded) ? `"${guarded.replaceAll('"', '""')}"` : guarded;
}

/** One record, CRLF-terminated (RFC 4180, 2.1). */
export function csvLine(values: readonly CsvValue[]): string {
  let line = csvCell(values[0]);
  for (let i = 1; i < values.length; i++) line += `,${csvCell(values[i])}`;
  return `${line}\r\n`;
}

const digitsByCurrency = new Map<string, number>();

/** How many decimals the currency's minor unit has (EUR 2, JPY 0, KWD 3); 2 for a code Intl does not know. */
export function currencyDigits(currency: string): number {
  const code = currency.toUpperCase();
  let digits = digitsByCurrency.get(code);
  if (digits === undefined) {
    try {
      digits = new Intl.NumberFormat('en', { style: 'currency', currency: code }).resolvedOptions().maximumFractionDigits ?? 2;
    } catch {
      digits = 2;
    }
    digitsByCurrency.set(code, digits);
  }
  return digits;
}

/** An amount in minor units as a plain decimal string (`1234`, EUR → `12.34`): no symbol, no grouping, exact. */
export function decimalAmount(minor: number, currency: string): string {
  const digits = currencyDigits(currency);
  const sign = minor < 0 ? '-' : '';
  const whole = String(Math.abs(Math.trunc(minor)));
  if (digits === 0) return `${sign}${whole}`;
  const padded = whole.padStart(digits + 1, '0');
  return `${sign}${padded.slice(0, -digits)}.${padded.slice(-digits)}`;
}

/** Unix seconds as ISO 8601 in UTC (`2026-11-27T14:03:00Z`); empty for none. */
export const isoTime = (seconds: number | null | undefined): string =>
  seconds === null || seconds === undefined ? '' : new Date(seconds * 1000).toISOString().replace('.000Z', 'Z');
