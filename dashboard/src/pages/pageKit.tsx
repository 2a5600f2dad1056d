/** Small pieces the Catalog, Offers, Promos and Automation pages share. */
import type { PageMeta } from '../api.ts';
import { ApiError } from '../api.ts';
import { dayIn } from '../format.ts';
import { organizationTimezone } from '../session.ts';

/** One page of a list the service answers whole (sequences, triggers, promos), with Laravel's meta. */
export function pageOfList<T>(items: T[], page: number, perPage = 25): { data: T[]; meta: PageMeta } {
  const total = items.length;
  const lastPage = Math.max(1, Math.ceil(total / perPage));
  const current = Math.min(Math.max(1, page), lastPage);
  const start = (current - 1) * perPage;
  const data = items.slice(start, start + perPage);
  return { data, meta: { current_page: current, last_page: lastPage, per_page: perPage, total, from: total ? start + 1 : null, to: total ? start + data.length : null } };
}

/** How many minor units a currency has (2 for EUR, 0 for JPY). */
export function currencyDigits(currency: string): number {
  try {
    return new Intl.NumberFormat('en', { style: 'currency', currency }).resolvedOptions().maximumFractionDigits ?? 2;
  } catch {
    return 2;
  }
}

/** "29.00" in EUR → 2900; NaN when it is not an amount (the server then says why beside the field). */
export function toMinor(major: string, currency: string): number {
  const n = Number(major.replace(',', '.').trim());
  if (!major.trim() || !Number.isFinite(n)) return Number.NaN;
  return Math.round(n * 10 ** currencyDigits(currency));
}

export function toMajor(minor: number, currency: string): string {
  const d = currencyDigits(currency);
  return (minor / 10 ** d).toFixed(d);
}

/** Any thrown value as an ApiError, so a form can always show it. */
export function asApiError(error: unknown): ApiError {
  return error instanceof ApiError ? error : new ApiError(0, 'client_error', (error as Error)?.message ?? 'Something went wrong.');
}

/** The import's create routes update a taken key or slug: a "New …" form refuses it instead, beside its field. */
export function takenError(field: string, what: string): ApiError {
  const message = `${what} already has this ${field}. Choose another, or open the existing one to edit it.`;
  return new ApiError(422, 'validation_failed', message, { [field]: [message] });
}

/** A Unix time as the organization's wall clock: ["2026-11-24", "14:05"] for a date and a time input. */
export function zonedParts(t: number | null | undefined): [string, string] {
  if (!t) return ['', ''];
  const time = new Intl.DateTimeFormat('en-GB', { timeZone: organizationTimezone(), hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(new Date(t * 1000));
  return [dayIn(t), time];
}

/** A key the template's placeholders can name (modules/automation/domain/template.ts): letters, digits, _ and -. */
const TEMPLATE_KEY = /^[A-Za-z0-9_-]+$/;

/**
 * `{{webhook_payload.a.b}}` for every value of a sample's payload (nested objects walked, 200 at
 * most); keys a placeholder cannot name (a space, a dot) are left out.
 */
export function sampleFields(payload: unknown, prefix = 'webhook_payload', out: string[] = []): string[] {
  if (out.length >= 200) return out;
  if (payload && typeof payload === 'object' && !Array.isArray(payload)) {
    for (const [k, v] of Object.entries(payload)) if (TEMPLATE_KEY.test(k)) sampleFields(v, `${prefix}.${k}`, out);
  } else if (prefix !== 'webhook_payload') out.push(`{{${prefix}}}`);
  return out;
}
