import {
  checkoutSessionDecider,
  checkoutSessionStream,
  type CheckoutSessionState,
  type SessionLine,
} from './domain/checkoutSession.ts';
import { invoiceDecider, invoiceStream } from './domain/invoice.ts';
import {
  DomainError,
  discountTerms,
  fold,
  invalid,
  notFound,
  priceLines,
  taxTerms,
  type AppliedDiscount,
  type AppliedTax,
  type CustomerTaxDetails,
  type PricingRecord,
} from '../../platform/domain/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { resolveDiscountCode } from '../discounts/index.ts';
import { calculateTax, resolveCustomerTaxDetails, taxSettingsFor } from '../tax/index.ts';

/** What the buyer typed that the tax needs (the tax module checks and completes it). */
export type CustomerDetailsInput = {
  address: { country: string; postal_code?: string | null | undefined; state?: string | null | undefined };
  business_name?: string | null | undefined;
  tax_id?: string | null | undefined;
};

/** A start's or pay's pricing fields: absent keeps what the session has; a `null` code removes it. */
export type PricingInput = { discountCode?: string | null | undefined; customerDetails?: CustomerDetailsInput | undefined };

type Priced = { lines: SessionLine[]; total: number; pricing: PricingRecord };

/** The lines at their list price: what every pricing starts from (a priced line keeps its own amount). */
export const listLines = (lines: readonly SessionLine[]): SessionLine[] =>
  lines.map((l) => ({ name: l.name, amount: l.amount, ...(l.product_id !== undefined ? { product_id: l.product_id } : {}) }));

/**
 * The one way a session is priced: the list lines with the discount and the tax, by priceLines.
 * A coupon limited to some products leaves the other lines as they are.
 */
export function priceSession(
  lines: readonly SessionLine[],
  currency: string,
  discount: AppliedDiscount | null,
  tax: AppliedTax | null,
  customerDetails: CustomerTaxDetails | null,
): Priced {
  const base = listLines(lines);
  const products = discount?.coupon.applies_to?.products ?? null;
  const totals = priceLines(
    base.map((l) => ({ name: l.name, amount: l.amount, ...(products && !(l.product_id && products.includes(l.product_id)) ? { discountable: false } : {}) })),
    currency,
    discount ? discountTerms(discount) : null,
    tax ? taxTerms(tax) : null,
  );
  return {
    lines: base.map((l, i) => {
      const p = totals.lines[i]!;
      return { ...l, discount_amount: p.discount_amount, taxable_amount: p.taxable_amount, tax_amount: p.tax_amount };
    }),
    total: totals.total,
    pricing: { subtotal: totals.subtotal, total_discount: totals.total_discount, total_tax: totals.total_tax, discount, tax, customer_details: customerDetails },
  };
}

export async function loadSession(ctx: CommandContext, id: string): Promise<CheckoutSessionState> {
  return fold(checkoutSessionDecider, (await ctx.store.readStream(checkoutSessionStream(id))) as never);
}

/** Where each field the tax module names sits in a start or pay body. */
const BODY_FIELDS: Record<string, string> = {
  country: 'customer_details.address.country',
  postal_code: 'customer_details.address.postal_code',
  state: 'customer_details.address.state',
  business_name: 'customer_details.business_name',
  tax_id: 'customer_details.tax_id',
};

/** The tax module's refusal, its fields named as the request body names them. */
function inBody(error: DomainError): DomainError {
  if (!error.fields) return error;
  const fields = Object.fromEntries(Object.entries(error.fields).map(([k, v]) => [BODY_FIELDS[k] ?? k, v]));
  return new DomainError(error.kind, error.code, error.message, fields);
}

const sameCode = (discount: AppliedDiscount | null, code: string) => discount?.promotion_code?.code.toLowerCase() === code.trim().toLowerCase();

/**
 * Prices the session again with what the buyer changed (a code applied or removed, the tax's
 * details), then its open invoice, in that order, as the customer's correction is followed. A code
 * or a detail refused (422) changes nothing. Answers the position of the last write.
 */
export async function repriceSession(ctx: CommandContext, services: Services, id: string, input: PricingInput): Promise<{ position: number | null }> {
  if (input.discountCode === undefined && input.customerDetails === undefined) return { position: null };
  // Each pass prices from the session as read; a change another request recorded since (the other
  // field of this form) refuses the append, and the next pass keeps it.
  for (let pass = 0; ; pass++) {
    try {
      const result = await repriceOnce(ctx, services, id, input);
      const followed = await followPricing(ctx, id);
      return { position: Math.max(result ?? 0, followed.position ?? 0) || null };
    } catch (error) {
      if (!(error instanceof DomainError && error.code === 'pricing_changed') || pass >= 4) throw error;
    }
  }
}

async function repriceOnce(ctx: CommandContext, services: Services, id: string, input: PricingInput): Promise<number | null> {
  const state = await loadSession(ctx, id);
  if (state.status === 'none') throw notFound('Checkout session');
  const session = state.session;
  const current = session.pricing ?? null;
  const now = ctx.metadata.occurred_at;
  let discount = current?.discount ?? null;
  if (input.discountCode === null) discount = null;
  else if (input.discountCode !== undefined && !sameCode(discount, input.discountCode)) {
    discount = await resolveDiscountCode(ctx, {
      organizationId: session.organization_id,
      code: input.discountCode.trim(),
      currency: session.currency,
      lines: listLines(session.lines).map((l) => ({ product_id: l.product_id ?? null, amount: l.amount })),
      customerId: null,
      customerEmail: state.customer?.email ?? null,
      now,
    });
  }
  let details = current?.customer_details ?? null;
  if (input.customerDetails) {
    const d = input.customerDetails;
    details = await resolveCustomerTaxDetails(services, {
      organizationId: session.organization_id,
      country: d.address.country,
      postal_code: d.address.postal_code ?? null,
      state: d.address.state ?? null,
      business_name: d.business_name ?? null,
      tax_id: d.tax_id ?? null,
    }).catch((error: unknown) => {
      throw error instanceof DomainError ? inBody(error) : error;
    });
  }
  const tax = details ? await calculateTax(ctx, { organizationId: session.organization_id, taxBehavior: session.tax_behavior ?? 'unspecified', customer: details, now }) : null;
  const priced = priceSession(session.lines, session.currency, discount, tax, details);
  const result = await handleCommand(ctx, checkoutSessionStream(id), checkoutSessionDecider, { type: 'RepriceSession', ...priced, basis: current, now });
  return result.position;
}

/**
 * Brings the open invoice's price up to the session's. Each pass re-reads the session after
 * writing, so a reprice that overtook this one is written after it: the newest price stays. A paid
 * or void invoice keeps its price.
 */
export async function followPricing(ctx: CommandContext, id: string): Promise<{ position: number | null }> {
  let latest: number | null = null;
  let session = await loadSession(ctx, id);
  for (let pass = 0; pass < 5 && session.status === 'open' && session.invoiceId !== null; pass++) {
    const s = session.session;
    if (!s.pricing) break;
    const stream = invoiceStream(session.invoiceId);
    if ((await ctx.store.readStream(stream)).length === 0) break; // its creation follows the session itself
    const changed = await handleCommand(ctx, stream, invoiceDecider, { type: 'RepriceInvoice', lines: s.lines, total: s.total, pricing: s.pricing, now: ctx.metadata.occurred_at }).catch(
      (error: unknown) => {
        if (error instanceof DomainError && (error.code === 'invoice_paid' || error.code === 'invoice_void' || error.code === 'invoice_not_open')) return null;
        throw error;
      },
    );
    if (!changed || changed.events.length === 0) break;
    latest = Math.max(latest ?? 0, changed.position ?? 0);
    session = await loadSession(ctx, id);
  }
  return { position: latest };
}

/** With the seller collecting tax, a session is paid only once the buyer's country is known. */
export async function assertTaxDetails(services: Services, state: CheckoutSessionState): Promise<void> {
  if (state.status === 'none') return;
  if (state.session.pricing?.customer_details?.address?.country) return;
  const settings = await taxSettingsFor(services.store, state.session.organization_id);
  if (!settings.enabled) return;
  throw invalid('country_required', 'Choose your country: the tax depends on it.', 'customer_details.address.country');
}

export async function assertSessionTaxDetails(ctx: CommandContext, services: Services, id: string): Promise<void> {
  await assertTaxDetails(services, await loadSession(ctx, id));
}
