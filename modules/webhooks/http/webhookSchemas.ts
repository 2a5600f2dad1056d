import { z } from 'zod';
import { WEBHOOK_EVENT_TYPES, type WebhookEventType } from '../domain/eventTypes.ts';
import { Workflow } from '../../automation/index.ts';
import { BenefitGrantSchema } from '../../benefits/index.ts';
import { Product } from '../../catalog/index.ts';
import { CouponRedemptionSchema } from '../../discounts/index.ts';
import { InvoicePricingShape, SessionResourceSchema } from '../../checkout/index.ts';
import { InvoiceResourceSchema, SubscriptionSchema } from '../../subscriptions/index.ts';

/** Shapes of what event webhooks carry: `data.object` per event type, each as its GET route (or the session list) shows it. */

const Customer = z.object({ email: z.string().nullable(), name: z.string().nullable() }).nullable();

export const InvoiceObject = z.object({
  id: z.string(),
  number: z.number().int(),
  status: z.enum(['open', 'paid', 'void']),
  total: z.number().int().describe('Minor units of `currency`.'),
  currency: z.string(),
  customer: Customer,
  session_id: z.string(),
  offer: z.object({ id: z.string(), slug: z.string(), name: z.string() }),
  mode: z.enum(['test', 'live']),
  payment: z.object({ brand: z.string(), last4: z.string() }).nullable().describe('The card that paid it (brand and last four digits only).'),
  ...InvoicePricingShape,
});

export const RefundedInvoiceObject = InvoiceObject.extend({
  refund: z
    .object({
      id: z.string().describe("The provider's refund (Stripe's re_…), or the event's id for a refund Stripe reported without one."),
      charge_id: z.string(),
      amount: z.number().int().describe('This refund, minor units.'),
      amount_refunded: z.number().int().describe('Refunded so far, this one included.'),
      fully_refunded: z.boolean(),
    })
    .describe('The refund this event announces.'),
});

export const DisputedInvoiceObject = InvoiceObject.extend({
  dispute: z
    .object({
      id: z.string().describe("Stripe's dispute (dp_…)."),
      charge_id: z.string(),
      amount: z.number().int(),
      currency: z.string(),
      reason: z.string().describe("Stripe's reason: fraudulent, product_not_received, …"),
      status: z.string().describe("Stripe's status when it was opened: needs_response, warning_needs_response, …"),
    })
    .describe('The dispute (chargeback) this event announces; answer it in Stripe.'),
});

const Sequence = z.number().int().describe("The order of the subscription's changes: keep the highest seen per subscription and drop an older one arriving late.");

/** A subscription's invoice (a renewal or a plan change's), as `GET /api/invoices/{id}` shows it. */
export const SubscriptionInvoiceObject = InvoiceResourceSchema.extend({ sequence: Sequence });

/** The invoice a renewal will make, sent before it exists. */
export const UpcomingInvoiceObject = z.object({
  id: z.null(),
  object: z.literal('invoice'),
  status: z.literal('draft'),
  billing_reason: z.literal('upcoming'),
  subscription: z.string(),
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable() }),
  mode: z.enum(['test', 'live']),
  currency: z.string(),
  period: z.object({ start: z.number().int(), end: z.number().int() }),
  lines: z.array(z.record(z.string(), z.unknown())),
  total: z.number().int(),
  amount_due: z.number().int(),
  next_payment_attempt: z.number().int(),
  sequence: Sequence,
});

export const OfferObject = z.object({
  id: z.string().describe('Offer route key.'),
  uuid: z.string(),
  slug: z.string(),
  name: z.string(),
  status: z.enum(['draft', 'published', 'archived']),
  price: z.number().int(),
  currency: z.string(),
  plan: z.record(z.string(), z.unknown()),
  created_at: z.number().int(),
  updated_at: z.number().int(),
  published_at: z.number().int().nullable(),
  archived_at: z.number().int().nullable(),
});

export const ParticipantObject = z.object({
  promo: z.string().describe('The promo slug.'),
  email: z.string(),
  reference: z.string().nullable(),
  enrolled_at: z.number().int(),
  workflow_id: z.number().int().nullable().describe('The automation workflow that enrolled the participant, if any.'),
});

export const OBJECT_SCHEMAS: Record<WebhookEventType, z.ZodType> = {
  'checkout.session.completed': SessionResourceSchema,
  'checkout.session.expired': SessionResourceSchema,
  'invoice.paid': z.union([InvoiceObject, SubscriptionInvoiceObject]),
  'invoice.voided': z.union([InvoiceObject, SubscriptionInvoiceObject]),
  'invoice.refunded': z.union([RefundedInvoiceObject, SubscriptionInvoiceObject.extend({ refund: RefundedInvoiceObject.shape.refund })]),
  'invoice.disputed': z.union([DisputedInvoiceObject, SubscriptionInvoiceObject.extend({ dispute: DisputedInvoiceObject.shape.dispute })]),
  'invoice.created': SubscriptionInvoiceObject,
  'invoice.upcoming': UpcomingInvoiceObject,
  'invoice.payment_failed': SubscriptionInvoiceObject,
  'customer.subscription.created': SubscriptionSchema,
  'customer.subscription.updated': SubscriptionSchema,
  'customer.subscription.deleted': SubscriptionSchema,
  'customer.subscription.trial_will_end': SubscriptionSchema,
  'promo.participant.enrolled': ParticipantObject,
  'product.published': Product,
  'product.archived': Product,
  'offer.published': OfferObject,
  'workflow.failed': Workflow,
  'coupon.redeemed': CouponRedemptionSchema,
  'benefit.granted': BenefitGrantSchema,
  'benefit.revoked': BenefitGrantSchema,
};

/** The body of every event webhook. */
export const eventPayloadSchema = (type: WebhookEventType) =>
  z.object({
    id: z.string().describe('The event id; also the `webhook-id` header, the same on every retry and resend: deduplicate on it.'),
    type: z.literal(type),
    created: z.number().int().describe('Unix seconds: when the event happened.'),
    organization_id: z.string(),
    data: z.object({ object: OBJECT_SCHEMAS[type] }),
  });

/** The OpenAPI 3.1 `webhooks` section: one POST per event type, with the Standard Webhooks headers. */
export function openApiWebhooks(): Record<string, unknown> {
  const headers = {
    'webhook-id': { required: true, schema: { type: 'string' }, description: 'The event id: stable across retries and resends.' },
    'webhook-timestamp': { required: true, schema: { type: 'string' }, description: 'Unix seconds of this attempt.' },
    'webhook-signature': {
      required: true,
      schema: { type: 'string' },
      description: 'Space-separated `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, one per signing secret in force (two during a rotation overlap). Verify with a Standard Webhooks library.',
    },
  };
  return Object.fromEntries(
    WEBHOOK_EVENT_TYPES.map((type) => [
      type,
      {
        post: {
          summary: `Event webhook: ${type}`,
          parameters: Object.entries(headers).map(([name, h]) => ({ name, in: 'header', ...h })),
          requestBody: { required: true, content: { 'application/json': { schema: z.toJSONSchema(eventPayloadSchema(type), { io: 'output', unrepresentable: 'any' }) } } },
          responses: { '2XX': { description: 'Received. Anything else (or no answer within 15 s) is retried on the published schedule.' } },
        },
      },
    ]),
  );
}
