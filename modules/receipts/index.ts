export { NOTICE_LINK_SLOT, type Notice } from './domain/notice.ts';
export { formatDay, formatMoney, formatPeriod } from './domain/receiptMessage.ts';
// An invoice's discount and tax in one line, for lists of invoices (the portal's).
export { pricingSummary } from './domain/receiptFigures.ts';
export { queueNotice } from './jobs/noticeOutbox.ts';
// The seller's block (logo, name, address, VAT number) for other PDFs of an organization (credit notes).
export { sellerHeader } from './sellerHeader.ts';
// One outbox for every buyer email: the portal's sign-in link, subscriptions' notices.
export { type BuyerEmail, enqueueBuyerEmail } from './jobs/buyerEmails.ts';
// Answers of the management routes, whose inferred types the dashboard imports (type-only).
export { OutboxAnswer as OutboxSchema, SmtpAnswer as SmtpSettingsSchema } from './http/smtpSchemas.ts';
export { publicBaseUrl } from './jobs/noticeOutbox.ts';
export { receiptLinksOf } from './receiptLinks.ts';
export { scrubBuyerFromOutbox } from './receiptScrub.ts';
