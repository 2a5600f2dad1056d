/** Dates in the organization's timezone (Settings), money in its currency; all from Intl. */
import { organizationTimezone } from './session.ts';
import { LOCALE } from './locale.ts';
// Pure, and bundled into the dashboard: one money format with the service (lint allows this file).
import { formatMoney as formatMoneyIn } from '../../platform/domain/moneyFormat.ts';

const cache = new Map<string, Intl.DateTimeFormat>();
function formatter(options: Intl.DateTimeFormatOptions, timeZone: string): Intl.DateTimeFormat {
  const key = `${timeZone}|${JSON.stringify(options)}`;
  let f = cache.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(LOCALE, { ...options, timeZone });
    cache.set(key, f);
  }
  return f;
}

/** Unix seconds (as the service sends times) or milliseconds to a Date. */
const toDate = (t: number): Date => new Date(t < 1e11 ? t * 1000 : t);

/** "24 Nov 2026, 14:05" in the organization's timezone. */
export function formatDateTime(t: number | null | undefined, timeZone = organizationTimezone()): string {
  if (t === null || t === undefined) return '—';
  return formatter({ dateStyle: 'medium', timeStyle: 'short' }, timeZone).format(toDate(t));
}

/** "24 Nov 2026, 14:05:09": for timelines, where seconds tell events apart. */
export function formatDateTimeSeconds(t: number | null | undefined, timeZone = organizationTimezone()): string {
  if (t === null || t === undefined) return '—';
  return formatter({ dateStyle: 'medium', timeStyle: 'medium' }, timeZone).format(toDate(t));
}

export function formatDate(t: number | null | undefined, timeZone = organizationTimezone()): string {
  if (t === null || t === undefined) return '—';
  return formatter({ dateStyle: 'medium' }, timeZone).format(toDate(t));
}

/** "3 minutes ago", "in 2 hours". */
export function formatRelative(t: number, now = Date.now()): string {
  const seconds = Math.round((toDate(t).getTime() - now) / 1000);
  const rtf = new Intl.RelativeTimeFormat(LOCALE, { numeric: 'auto' });
  const units: [Intl.RelativeTimeFormatUnit, number][] = [
    ['day', 86400],
    ['hour', 3600],
    ['minute', 60],
  ];
  for (const [unit, size] of units) if (Math.abs(seconds) >= size) return rtf.format(Math.round(seconds / size), unit);
  return rtf.format(seconds, 'second');
}

/** The date (YYYY-MM-DD) a moment falls on in a timezone (en-CA writes dates that way). */
export function dayIn(t: number, timeZone = organizationTimezone()): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(toDate(t));
}

/**
 * The Unix second a wall-clock date and time ("2026-11-24", "00:00") begins at in a timezone:
 * the offset is read from Intl for that very moment, so daylight saving is right.
 */
export function zonedTimeToUnix(date: string, time = '00:00', timeZone = organizationTimezone()): number {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number];
  const [hh, mm] = time.split(':').map(Number) as [number, number];
  const guess = Date.UTC(y, m - 1, d, hh, mm);
  const offsetAt = (ms: number) => {
    const parts = formatter({ year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric', hourCycle: 'h23' }, timeZone).formatToParts(new Date(ms));
    const get = (type: string) => Number(parts.find((p) => p.type === type)?.value);
    return Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second')) - ms;
  };
  const first = guess - offsetAt(guess);
  return Math.floor((guess - offsetAt(first)) / 1000);
}

/** Minor units (cents) to "€12.00" in the dashboard's locale: the service's one money format. */
export function formatMoney(minor: number | null | undefined, currency: string | null | undefined): string {
  if (minor === null || minor === undefined) return '—';
  return formatMoneyIn(minor, currency ?? 'USD', LOCALE);
}
