import { isRedirectUrl } from '../domain/redirectUrls.ts';
import { z } from 'zod';
import { effectiveStatus, type CustomerInput } from '../domain/checkoutSession.ts';
import type { InvoiceView, SessionView } from '../domain/sessionView.ts';
import type { PricingInput } from '../sessionPricing.ts';
import { InvoicePricingShape, SessionPricingShape, invoicePricing, sessionPricing } from './pricingSchemas.ts';

export const OfferRefSchema = z.object({ id: z.string(), slug: z.string(), name: z.string() });

export const RefundStatusSchema = z
  .enum(['refunded', 'partially_refunded'])
  .nullable()
  .describe('`refunded` when all of it went back, `partially_refunded` when some did; null when nothing was refunded. The status stays `paid` (`completed` for a session), as Stripe keeps it.');

export const InvoiceSchema = z.object({
  id: z.string(),
  number: z.number().int(),
  status: z.enum(['open', 'paid', 'void']),
  total: z.number().int(),
  currency: z.string(),
  amount_refunded: z.number().int().describe('Refunded so far, minor units of `currency`.'),
  refund_status: RefundStatusSchema,
  ...InvoicePricingShape,
});

export const SessionSchema = z.object({
  id: z.string(),
  status: z.enum(['open', 'completed', 'expired']),
  total: z.number().int().describe('Minor units of `currency`.'),
  currency: z.string(),
  mode: z.enum(['test', 'live']),
  expires_at: z.number().int(),
  promo: z.string().nullable().describe('The promo slug the session was created with; null without one.'),
  promo_tier: z
    .string()
    .nullable()
    .describe("The promo tier whose price the session took; null when its promo priced nothing (another offer's, not started, ended, sold out)."),
  invoice: InvoiceSchema.nullable().describe('Created when the buyer starts the checkout; null before.'),
  amount_refunded: z.number().int().describe("Refunded of the session's invoice so far, minor units of `currency`."),
  refund_status: RefundStatusSchema,
  subscription: z
    .object({ id: z.string(), status: z.enum(['trialing', 'active']) })
    .nullable()
    .describe("The subscription the purchase of a recurring plan made, with the status it started in (trialing with a trial); null before completion and for one-time plans. Its current state: GET /api/subscriptions/{id}."),
  ...SessionPricingShape,
});

/** An item of GET /manage/api/checkout/sessions, and the `session` of each invoice listed. */
export const ManagedSessionSchema = SessionSchema.extend({
  created_at: z.number().int(),
  customer: z.object({ email: z.string().nullable(), name: z.string().nullable(), user_id: z.string().nullable() }).nullable(),
  customer_id: z.string().nullable(),
  offer: OfferRefSchema,
});

export const offerRef = (offer: { route_key: string; slug: string; name: string }) => ({
  id: offer.route_key,
  slug: offer.slug,
  name: offer.name,
});

export const sessionOfferRef = (doc: SessionView) => ({ id: doc.offer.id, slug: doc.offer.slug, name: doc.offer.name });

/** A session as the API shows it at `now` (seconds): past its expiry it reads as expired at once. */
export function presentSession(doc: SessionView, now: number): z.infer<typeof SessionSchema> {
  return {
    id: doc.id,
    status: effectiveStatus(doc.status, doc.expires_at, now),
    total: doc.total,
    currency: doc.currency,
    mode: doc.mode,
    expires_at: doc.expires_at,
    promo: doc.promo ?? null,
    promo_tier: doc.promo_tier ?? null,
    invoice: doc.invoice ? presentInvoice(doc.invoice) : null,
    amount_refunded: doc.invoice?.amount_refunded ?? 0,
    refund_status: doc.invoice?.refund_status ?? null,
    subscription: doc.subscription ?? null,
    ...sessionPricing(doc.pricing, doc.total),
  };
}

export const presentInvoice = (i: InvoiceView) => ({
  id: i.id,
  number: i.number,
  status: i.status,
  total: i.total,
  currency: i.currency,
  amount_refunded: i.amount_refunded ?? 0,
  refund_status: i.refund_status ?? null,
  ...invoicePricing(i.pricing, i.total),
});

export const SessionIdParams = z.object({
  id: z.string().min(1).max(64).regex(/^[A-Za-z0-9_]+$/, 'must contain only letters, digits and _'),
});

const CustomerSchema = z
  .object({
    email: z.email().max(254).optional(),
    name: z.string().trim().min(1).max(200).optional(),
    token: z.string().min(1).max(4096).optional().describe('A signed user token: the service_jwt of GET /api/users/me.'),
  })
  .strict()
  .refine((c) => c.token !== undefined || c.email !== undefined, {
    message: 'The customer field needs an email or a token.',
  })
  .refine((c) => !(c.token !== undefined && (c.email !== undefined || c.name !== undefined)), {
    message: 'The customer field takes either a token or email and name, not both.',
  });

/** As Stripe: up to 20 keys of at most 40 characters, values of at most 500 characters, strings only. */
const MetadataSchema = z
  .record(z.string().min(1).max(40), z.string().max(500))
  .refine((m) => Object.keys(m).length <= 20, { message: 'The metadata field must not have more than 20 keys.' });

const OfferParam = z.string().trim().min(1).max(200);
/** The same rule as the offer's success_url and cancel_url (redirectUrls.ts). */
const RedirectUrlField = z.string().refine(isRedirectUrl, 'must be an absolute http or https URL of at most 2048 characters');

export const CreateSessionBody = z
  .object({
    offer: OfferParam.optional().describe('Slug, Sqid route key or UUID of a published offer.'),
    offer_id: OfferParam.optional().describe('Same as offer (compatibility).'),
    customer: CustomerSchema.optional(),
    metadata: MetadataSchema.optional(),
    mode: z.enum(['test', 'live']).default('test'),
    expires_in: z.number().int().min(1800).max(86_400).default(86_400).describe('Seconds until the session expires.'),
    promo: z
      .string()
      .max(100)
      .regex(/^[a-z0-9]+(?:-[a-z0-9]+)*$/, 'must be a promo slug')
      .optional(),
    success_url: RedirectUrlField.optional().describe(
      "Where the full-page checkout of this session (the answer's url) sends the buyer after paying, instead of the offer's; {CHECKOUT_SESSION_ID} is replaced by the session id.",
    ),
    cancel_url: RedirectUrlField.optional().describe("Where it sends the buyer who cancels, instead of the offer's; {CHECKOUT_SESSION_ID} as in success_url."),
    discount_code: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe("A promotion code the buyer gave (case-insensitive): its discount prices the session. A wrong, expired or used-up code is refused (422) and no session is made."),
    test_clock: z
      .string()
      .regex(/^clock_[A-Za-z0-9]{1,60}$/, 'must be a test clock id (clock_…)')
      .optional()
      .describe("Test mode, with the seller's credential only: the test clock (POST /api/test_clocks) the subscription this purchase makes lives on."),
  })
  .refine((b) => b.offer !== undefined || b.offer_id !== undefined, {
    message: 'The offer field is required.',
    path: ['offer'],
  });

export const CheckoutQuery = z
  .object({ offer: OfferParam.optional(), offer_id: OfferParam.optional() })
  .refine((q) => q.offer !== undefined || q.offer_id !== undefined, { message: 'The offer field is required.', path: ['offer'] });

/** What the buyer types; start and pay take them, so a correction after a decline reaches the invoice. */
const BuyerFields = { email: z.email().max(254).optional(), name: z.string().trim().min(1).max(200).optional() };

const optionalText = (max: number) => z.string().trim().max(max).nullish().transform((v) => (v ? v : null));

/** What the tax needs; the tax module checks the country, the postal code and the VAT number's format. */
const CustomerDetailsBody = z.object({
  address: z.object({
    country: z
      .string()
      .trim()
      .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code (ISO 3166-1)')
      .transform((c) => c.toUpperCase()),
    postal_code: optionalText(20),
    state: optionalText(60),
  }),
  business_name: optionalText(200),
  tax_id: optionalText(40).describe('The business\'s VAT number, with its country prefix (DE123456789).'),
});

/** The pricing a start or pay may change: a code to apply (a string) or remove (null), and what the tax needs. */
const PricingFields = {
  discount_code: z.string().trim().min(1).max(100).nullable().optional().describe('A promotion code to apply; null removes the one applied. Absent: unchanged.'),
  customer_details: CustomerDetailsBody.optional().describe('The buyer\'s country (postal code where its rate needs it) and, buying for a business, its name and VAT number.'),
};

/** Unknown keys are dropped rather than refused, so a hosted page that sends more still works. */
export const StartBody = z.object({ ...BuyerFields, ...PricingFields }).nullish();

export const customerInput = (body: { email?: string | undefined; name?: string | undefined } | null | undefined): CustomerInput | null =>
  body ? { email: body.email, name: body.name } : null;

export const pricingInput = (body: { discount_code?: string | null | undefined; customer_details?: z.infer<typeof CustomerDetailsBody> | undefined } | null | undefined): PricingInput => ({
  ...(body?.discount_code !== undefined ? { discountCode: body.discount_code } : {}),
  ...(body?.customer_details ? { customerDetails: body.customer_details } : {}),
});

/**
 * A number, also when a form sent it as a string of digits ("12", "2030"). Whole and in range is
 * checked by the pipe after it, so an oversized number reports the field's own limit.
 */
const wholeNumber = z.union([z.number(), z.string().regex(/^\d{1,4}$/, 'must be a number').transform(Number)]);

export const PayBody = z.object({
  ...BuyerFields,
  ...PricingFields,
  card: z.object({
    number: z
      .string()
      .transform((n) => n.replace(/[\s-]/g, ''))
      .pipe(z.string().regex(/^\d{12,19}$/, 'must be 12 to 19 digits')),
    exp_month: wholeNumber.pipe(z.number().int().min(1).max(12)),
    // Two-digit years (30) mean 2030, as card forms print them.
    exp_year: wholeNumber.transform((y) => (y < 100 ? 2000 + y : y)).pipe(z.number().int().min(2000).max(2100)),
    cvc: z.string().regex(/^\d{3,4}$/, 'must be 3 or 4 digits'),
  }),
});

export const IdempotencyHeaders = z.looseObject({
  'idempotency-key': z.string().min(1).max(255).optional(),
});
