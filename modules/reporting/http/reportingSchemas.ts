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
