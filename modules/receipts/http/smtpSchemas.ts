import { z } from 'zod';

// The answers of the SMTP settings and outbox routes (the dashboard infers its types from these).

export const SmtpAnswer = z.object({
  configured: z.boolean().describe('The organization has its own SMTP server.'),
  host: z.string().nullable(),
  port: z.number().int().nullable(),
  username: z.string().nullable(),
  from: z.string().nullable(),
  password_set: z.boolean().describe('A password is stored (sealed); it is never shown back.'),
  updated_at: z.number().int().nullable(),
  operator_default: z.boolean().describe("The service has the operator's SMTP_URL: without settings of its own, the organization's email goes through it."),
});

export const OutboxAnswer = z.object({
  waiting: z.number().int().describe('Buyer emails and notices queued and not sent.'),
  way_out: z.enum(['organization', 'operator']).nullable().describe("Through which SMTP server they leave; null: none, they wait until one is set."),
});
