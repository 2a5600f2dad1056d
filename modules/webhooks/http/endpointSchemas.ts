import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES } from '../domain/eventTypes.ts';

/** An endpoint and its deliveries as the bearer and management routes answer them (never a secret). */
export const Endpoint = z.object({
  id: z.string(),
  url: z.string(),
  event_types: z.array(z.enum(WEBHOOK_EVENT_TYPES)),
  enabled: z.boolean(),
  disabled_reason: z.enum(['manual', 'failing']).nullable().describe('`failing`: disabled by the service after five days of failed deliveries.'),
  created_at: z.number().int(),
  updated_at: z.number().int(),
});

export const Attempt = z.object({
  attempt: z.number().int(),
  manual: z.boolean(),
  success: z.boolean(),
  status_code: z.number().int(),
  error: z.string().nullable(),
  duration_ms: z.number().int(),
  response_excerpt: z.string(),
  attempted_at: z.number().int(),
  next_attempt_at: z.number().int().nullable(),
});
export const Delivery = z.object({
  id: z.string(),
  event_id: z.string(),
  event_type: z.enum(WEBHOOK_EVENT_TYPES),
  status: z.enum(['pending', 'succeeded', 'failed']),
  attempts: z.number().int(),
  next_attempt_at: z.number().int().nullable(),
  created_at: z.number().int(),
  attempt_log: z.array(Attempt),
});
