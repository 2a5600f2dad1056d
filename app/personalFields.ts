import type { PersonalFieldTable, PersonFields } from '../platform/privacy/index.ts';

const buyer: PersonFields = { at: ['customer'], email: 'email', name: 'name', userId: 'user_id' };

/**
 * The events that name a buyer, and where: these fields are sealed with the buyer's key in the
 * log (platform/privacy), so an erasure (POST /api/customers/{id}/redact) leaves them unreadable.
 * An event type that starts naming a buyer is added here.
 */
export const personalFields: PersonalFieldTable = {
  CheckoutSessionCreated: [buyer],
  CheckoutSessionStarted: [buyer],
  CheckoutSessionCustomerChanged: [buyer],
  InvoiceCreated: [buyer],
  InvoiceCustomerChanged: [buyer],
  SubscriptionCreated: [buyer],
  SubscriptionCustomerRedacted: [buyer],
  CreditNoteIssued: [{ at: ['customer'], email: 'email', name: 'name' }],
  CustomerCreated: [{ at: [], email: 'email', name: 'name', userId: 'user_id' }],
  ReceiptQueued: [{ at: ['receipt'], email: 'buyer_email', name: 'buyer_name' }],
  PromoParticipantEnrolled: [{ at: [], email: 'email' }],
  // An email queued to a person (a receipt's refund, a failed payment, a sign-in link): its address, and its text and HTML, which greet them by name.
  NoticeQueued: [
    {
      at: ['notice'],
      email: 'to',
      also: { text: 'This message was erased with its recipient’s personal data.', html: '<p>This message was erased with its recipient’s personal data.</p>' },
    },
  ],
  // The event a webhook sends, as recorded for its delivery: the buyer of the object it carries.
  WebhookDeliveryCreated: [
    {
      at: [],
      json: 'payload',
      persons: [
        { at: ['data', 'object', 'customer'], email: 'email', name: 'name', userId: 'user_id' },
        { at: ['data', 'object'], email: 'customer_email', name: 'customer_name' },
        // promo.participant.enrolled: the participant.
        { at: ['data', 'object'], email: 'email' },
      ],
    },
  ],
};
