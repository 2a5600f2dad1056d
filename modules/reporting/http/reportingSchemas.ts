import { z } from 'zod';

// The answers of the reporting routes (the dashboard infers its types from these).

/** An event of the organization's event log. */
export const Event = z.object({
  id: z.string(),
  stream: z.string(),
  revision: z.number().int(),
  type: z.string(),
  occurred_at: z.number().int(),
  actor: z.record(z.string(), z.unknown()),
  correlation_id: z.string(),
  data: z.unknown(),
});

const Day = z.object({
  date: z.string().describe('YYYY-MM-DD in the organization’s time zone.'),
  from: z.number().int(),
  to: z.number().int(),
  created: z.number().int(),
  completed: z.number().int(),
  expired: z.number().int(),
  amounts: z.record(z.string(), z.number().int()).describe('Completed sales, minor units by currency.'),
  gross: z.record(z.string(), z.number().int()).describe('What paid invoices charged (checkouts and renewals), minor units by currency, when they were paid.'),
  refunds: z.record(z.string(), z.number().int()).describe('Refunded, minor units by currency, when refunded.'),
  net: z.record(z.string(), z.number().int()).describe('gross less refunds, by currency.'),
});

/** The Home page's sales per day. */
export const SalesStats = z.object({
  timezone: z.string(),
  days: z.array(Day),
  totals: Day.omit({ date: true }),
  open_sessions: z.number().int().describe('Sessions open now (not expired, not completed).'),
});

const TaxRow = z.object({
  period: z.string().describe('2026-11 (month), 2026-Q4 (quarter), 2026 (year) or 2026-11-27 (day), in the organization’s time zone.'),
  period_start: z.number().int(),
  period_end: z.number().int(),
  country: z.string().nullable().describe('ISO 3166-1 alpha-2: the country of the rate, else the buyer’s; null when neither is known.'),
  tax_rate: z.number().describe('The percentage charged; 0 for a reverse charge or when no tax was collected.'),
  taxability_reason: z.string().describe('standard_rated, reverse_charge, not_collecting, zero_rated or customer_exempt (Stripe Tax’s).'),
  currency: z.string(),
  taxable_amount: z.number().int().describe('Net of tax, minor units: paid invoices less credit notes.'),
  tax_amount: z.number().int().describe('Tax, minor units: what paid invoices charged less what credit notes gave back.'),
  invoice_count: z.number().int(),
  credit_note_count: z.number().int(),
});

/** The tax report (GET /api/reports/tax). */
export const TaxReport = z.object({
  timezone: z.string(),
  interval: z.enum(['day', 'month', 'quarter', 'year']),
  from: z.number().int().nullable(),
  to: z.number().int().nullable(),
  mode: z.enum(['test', 'live']).nullable(),
  data: z.array(TaxRow),
  totals: z.array(z.object({ currency: z.string(), taxable_amount: z.number().int(), tax_amount: z.number().int(), invoice_count: z.number().int(), credit_note_count: z.number().int() })).describe('Per currency, over the whole range.'),
});
