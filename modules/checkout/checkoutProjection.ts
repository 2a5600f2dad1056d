import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import { encodeRouteKey } from '../../platform/lib/index.ts';
import type { OfferEvent, OfferPage, OfferPlan, OfferStatus, OfferTheme } from './domain/offer.ts';
import { evolveSessionView, type CheckoutEvent, type SessionView } from './domain/sessionView.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

export const OFFERS = 'offers';
export const CHECKOUT_SESSIONS = 'checkout_sessions';
/** Invoice id → session id, so invoice events find the session document they change. */
export const CHECKOUT_INVOICES = 'checkout_invoices';

export type OfferDoc = {
  id: string;
  uuid: string;
  route_key: string;
  number: number;
  organization_id: string;
  slug: string;
  name: string;
  theme: OfferTheme;
  pages: OfferPage[];
  plan: OfferPlan;
  price: number;
  currency: string;
  /** The seller's shop, linked from the thank-you page; absent or null without one. */
  shop_url?: string | null;
  /** Days of free trial before the first charge of a recurring plan; absent or null without one. */
  trial_period_days?: number | null;
  /** The seller's coupon every session of the offer starts with (absent on offers saved before coupons). */
  coupon?: string | null;
  /** Where the full-page checkout sends the buyer after paying and on cancel (modules/checkout/domain/redirectUrls.ts). */
  success_url?: string;
  cancel_url?: string;
  /** Origins a public caller may send those URLs on (modules/checkout/domain/offer.ts); absent when none. */
  allowed_redirect_origins?: string[];
  status: OfferStatus;
  created_at: number;
  updated_at: number;
  published_at: number | null;
  archived_at: number | null;
};

/**
 * `open_until` is expires_at while the session is open and 0 once it expired (null once
 * completed), so "open" (open_until > now) and "expired" (open_until <= now) are single range
 * filters even before the expiry job has recorded the expiry.
 */
export type SessionDoc = SessionView & {
  open_until: number | null;
  updated_at: number;
  /** The revisions of the session's stream and its invoice's the document was built to: its ETag. */
  session_revision: number;
  invoice_revision: number | null;
};

const offerEvents = ['OfferCreated', 'OfferUpdated', 'OfferPublished', 'OfferArchived'] as const;
const sessionEvents = [
  'CheckoutSessionCreated',
  'CheckoutSessionStarted',
  'CheckoutSessionCustomerChanged',
  'CheckoutSessionPaymentAttempted',
  'CheckoutSessionPaymentDeclined',
  'CheckoutSessionCancelled',
  'CheckoutSessionCompleted',
  'CheckoutSessionExpired',
  'CheckoutSessionRepriced',
  'InvoiceCreated',
  'InvoiceCustomerChanged',
  'InvoiceRepriced',
  'InvoicePaid',
  'InvoiceVoided',
  'InvoiceRefunded',
] as const;

const streamId = (stream: string) => stream.slice(stream.indexOf('-') + 1);

async function applyOffer(event: OfferEvent, uuid: string, occurredAt: number, tx: ProjectionTx): Promise<void> {
  if (event.type === 'OfferCreated') {
    const { id, created_at, ...rest } = event.data;
    const doc: OfferDoc = {
      ...rest,
      id: uuid,
      route_key: encodeRouteKey(id),
      number: id,
      status: 'draft',
      created_at,
      updated_at: created_at,
      published_at: null,
      archived_at: null,
    };
    tx.upsert(OFFERS, doc);
    return;
  }
  const offer = await tx.get<OfferDoc>(OFFERS, uuid);
  if (!offer) return;
  switch (event.type) {
    case 'OfferUpdated': {
      const { updated_at, ...content } = event.data;
      // An update without a redirect URL or allowed origins removes them.
      const { success_url: _s, cancel_url: _c, allowed_redirect_origins: _o, ...kept } = offer;
      tx.upsert(OFFERS, { ...kept, ...content, shop_url: content.shop_url ?? null, trial_period_days: content.trial_period_days ?? null, coupon: content.coupon ?? null, updated_at });
      return;
    }
    case 'OfferPublished':
      tx.upsert(OFFERS, { ...offer, status: 'published', published_at: event.data.published_at, updated_at: occurredAt });
      return;
    case 'OfferArchived':
      tx.upsert(OFFERS, { ...offer, status: 'archived', archived_at: event.data.archived_at, updated_at: occurredAt });
      return;
  }
}

async function applySession(event: CheckoutEvent, stream: string, revision: number, occurredAt: number, tx: ProjectionTx): Promise<void> {
  let sessionId: string;
  if (event.type === 'InvoiceCreated') {
    // A subscription's renewal has no session: the subscriptions module shows it.
    if (event.data.session_id === null) return;
    sessionId = event.data.session_id;
    tx.upsert(CHECKOUT_INVOICES, { id: event.data.id, session_id: sessionId });
  } else if (
    event.type === 'InvoiceCustomerChanged' ||
    event.type === 'InvoiceRepriced' ||
    event.type === 'InvoicePaid' ||
    event.type === 'InvoiceVoided' ||
    event.type === 'InvoiceRefunded'
  ) {
    const link = await tx.get<{ id: string; session_id: string }>(CHECKOUT_INVOICES, streamId(stream));
    if (!link) return;
    sessionId = link.session_id;
  } else {
    sessionId = streamId(stream);
  }
  const current = event.type === 'CheckoutSessionCreated' ? null : await tx.get<SessionDoc>(CHECKOUT_SESSIONS, sessionId);
  const view = evolveSessionView(current, event);
  if (!view) return;
  const openUntil = view.status === 'open' ? view.expires_at : view.status === 'expired' ? 0 : null;
  const onInvoice = stream.startsWith('invoice-');
  const doc: SessionDoc = {
    ...view,
    open_until: openUntil,
    updated_at: occurredAt,
    session_revision: onInvoice ? (current?.session_revision ?? 0) : revision,
    invoice_revision: onInvoice ? revision : (current?.invoice_revision ?? null),
  };
  tx.upsert(CHECKOUT_SESSIONS, doc);
}

/** Offers (found by slug, route key or UUID) and checkout sessions with their invoice. */
export const checkoutProjection: Projection = {
  name: 'checkout',
  version: 5,
  collections: [OFFERS, CHECKOUT_SESSIONS, CHECKOUT_INVOICES],
  indexes: [
    { collection: OFFERS, fields: ['slug'] },
    { collection: OFFERS, fields: ['number'] },
    { collection: OFFERS, fields: ['organization_id', 'number'] },
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'created_at'] },
    { collection: CHECKOUT_SESSIONS, fields: ['status', 'expires_at'] },
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'open_until'] },
    // The management lists: a buyer's sessions, and invoices, newest first.
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'customer.email', 'created_at'] },
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'invoice.number'] },
    // The refunded and partly refunded sales, a filter of the lists.
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'invoice.refund_status', 'created_at'] },
    // The sales export: completed sessions by completion time.
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'status', 'completed_at'] },
    // A product's purchases: what a benefit added to it is granted to.
    { collection: CHECKOUT_SESSIONS, fields: ['organization_id', 'product_id', 'status'] },
  ],
  eventTypes: [...offerEvents, ...sessionEvents],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const event = recorded as unknown as OfferEvent | CheckoutEvent;
    const occurredAt = recorded.metadata.occurred_at;
    if ((offerEvents as readonly string[]).includes(event.type)) {
      await applyOffer(event as OfferEvent, streamId(recorded.stream), occurredAt, tx);
    } else {
      await applySession(event as CheckoutEvent, recorded.stream, recorded.revision, occurredAt, tx);
    }
  },
};
