export { CHECKOUT_SESSIONS } from './checkoutProjection.ts';
export { type CardSummary, checkoutSessionDecider, checkoutSessionStream, type CustomerInput, type SessionMode } from './domain/checkoutSession.ts';
export { invoiceDecider, type InvoiceCommand, type InvoiceEvent, type InvoiceState, invoiceStream } from './domain/invoice.ts';
export { offerStream } from './domain/offer.ts';
export { RedirectOrigins } from './offerImport.ts';
export { readSessionSnapshot } from './sessionSnapshot.ts';
export { completePaidInvoiceSession, reserveSessionRedemption, sessionCustomerId, startSession } from './sessionCommands.ts';
export { presentSessionResource, type SessionResource, SessionResourceSchema } from './resources.ts';
export { checkoutProjection, OFFERS, type OfferDoc } from './checkoutProjection.ts';
export { type CheckoutEvent, evolveSessionView, type SessionView, viewAt } from './domain/sessionView.ts';
// Answers of the management routes, whose types the dashboard imports (type-only).
export { ManagedSessionSchema } from './http/checkoutSchemas.ts';
// An invoice's discount and tax in Stripe's names, for the invoice.* webhooks' payloads.
export { DiscountSchema, invoicePricing, InvoicePricingShape } from './http/pricingSchemas.ts';
export type { HistoryEntry } from './sessionHistory.ts';
export type { ManagedOffer } from './http/offerRoutes.ts';
