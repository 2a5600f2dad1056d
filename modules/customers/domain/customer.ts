import { type Decider, type DomainEvent, notFound } from '../../../platform/domain/index.ts';

/**
 * A customer: one person buying from one organization (Stripe's Customer). Who is the same person
 * is decided by a key claim (`customer_key-…`): the signed identity's user id when the purchase
 * had one, else the normalized email. The claim names the customer; the customer's own stream
 * holds what is known of them.
 */

export type CustomerCreatedData = { id: string; organization_id: string; mode: CustomerMode; email: string | null; name: string | null; user_id: string | null; created_at: number };

export type CustomerEvent =
  | DomainEvent<'CustomerCreated', CustomerCreatedData>
  /** A GDPR erasure: personal fields read as redacted from here on; totals and links stay. */
  | DomainEvent<'CustomerRedacted', { redacted_at: number; released_keys: string[] }>
  /**
   * A purchase completed before customers existed, linked by the backfill: the session, its
   * invoice, and the subscription it made with that subscription's invoices so far.
   */
  | DomainEvent<
      'CustomerPurchaseLinked',
      {
        session_id: string;
        invoice_id: string;
        completed_at: number;
        subscription: { id: string; status: string; invoice_ids: string[] } | null;
        linked_at: number;
      }
    >;

export type CustomerMode = 'test' | 'live';

export type CustomerState =
  | { status: 'none' }
  | {
      status: 'active' | 'redacted';
      id: string;
      organization_id: string;
      mode: CustomerMode;
      email: string | null;
      name: string | null;
      user_id: string | null;
      created_at: number;
      /** Sessions the backfill linked. */
      linked: string[];
    };

export type CustomerCommand =
  | { type: 'CreateCustomer'; id: string; organizationId: string; mode: CustomerMode; email: string | null; name: string | null; userId: string | null; now: number }
  | { type: 'RedactCustomer'; releasedKeys: string[]; now: number }
  | {
      type: 'LinkPurchase';
      sessionId: string;
      invoiceId: string;
      completedAt: number;
      subscription: { id: string; status: string; invoiceIds: string[] } | null;
      now: number;
    };

export const customerStream = (id: string) => `customer-${id}`;

/** What a redacted customer's email reads as: unique, and of a domain that never delivers (RFC 2606). */
export const redactedEmail = (id: string) => `redacted+${id}@invalid`;

export const customerDecider: Decider<CustomerState, CustomerCommand, CustomerEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerCreated': {
        const d = event.data;
        return { status: 'active', id: d.id, organization_id: d.organization_id, mode: d.mode, email: d.email, name: d.name, user_id: d.user_id, created_at: d.created_at, linked: [] };
      }
      case 'CustomerPurchaseLinked':
        return state.status === 'none' ? state : { ...state, linked: [...state.linked, event.data.session_id] };
      case 'CustomerRedacted':
        return state.status === 'none' ? state : { ...state, status: 'redacted', email: null, name: null, user_id: null };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateCustomer':
        // Idempotent: a claim's winner and its losers may all ask; the first one makes it.
        if (state.status !== 'none') return [];
        return {
          type: 'CustomerCreated',
          data: {
            id: command.id,
            organization_id: command.organizationId,
            mode: command.mode,
            email: command.email,
            name: command.name,
            user_id: command.userId,
            created_at: command.now,
          },
        };
      case 'RedactCustomer':
        if (state.status === 'none') throw notFound('Customer');
        if (state.status === 'redacted') return [];
        return { type: 'CustomerRedacted', data: { redacted_at: command.now, released_keys: command.releasedKeys } };
      case 'LinkPurchase': {
        if (state.status === 'none') throw notFound('Customer');
        if (state.linked.includes(command.sessionId)) return [];
        const sub = command.subscription;
        return {
          type: 'CustomerPurchaseLinked',
          data: {
            session_id: command.sessionId,
            invoice_id: command.invoiceId,
            completed_at: command.completedAt,
            subscription: sub ? { id: sub.id, status: sub.status, invoice_ids: sub.invoiceIds } : null,
            linked_at: command.now,
          },
        };
      }
    }
  },
};

/** A key claim: which customer a user id or an email of an organization names, until released. */
export type CustomerKeyEvent =
  | DomainEvent<'CustomerKeyClaimed', { customer_id: string; organization_id: string; claimed_at: number }>
  | DomainEvent<'CustomerKeyReleased', { customer_id: string; released_at: number }>;

export type CustomerKeyState = { holder: string | null };

export type CustomerKeyCommand =
  | { type: 'ClaimCustomerKey'; customerId: string; organizationId: string; now: number }
  | { type: 'ReleaseCustomerKey'; customerId: string; now: number };

/** `hash`: sha256 of the organization and the key (`user:<id>` or `email:<normalized>`), hex. */
export const customerKeyStream = (organizationId: string, hash: string) => `customer_key-${organizationId}-${hash}`;

export const normalizeEmail = (email: string) => email.trim().toLowerCase();

/**
 * What identifies the person: the signed user id when there is one, else the email; null: nobody
 * known. As Stripe's, test and live customers are apart, so test purchases never add to live totals.
 */
export function customerKeys(input: { mode: CustomerMode; userId?: string | null; email?: string | null }): { primary: string; secondary: string | null } | null {
  const email = input.email ? normalizeEmail(input.email) : '';
  if (input.userId) return { primary: `${input.mode}:user:${input.userId}`, secondary: email ? `${input.mode}:email:${email}` : null };
  if (email) return { primary: `${input.mode}:email:${email}`, secondary: null };
  return null;
}

export const customerKeyDecider: Decider<CustomerKeyState, CustomerKeyCommand, CustomerKeyEvent> = {
  initialState: () => ({ holder: null }),
  evolve(state, event) {
    switch (event.type) {
      case 'CustomerKeyClaimed':
        return { holder: event.data.customer_id };
      case 'CustomerKeyReleased':
        return state.holder === event.data.customer_id ? { holder: null } : state;
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'ClaimCustomerKey':
        // The first claim wins; later ones read the holder from the state the command returns.
        if (state.holder !== null) return [];
        return { type: 'CustomerKeyClaimed', data: { customer_id: command.customerId, organization_id: command.organizationId, claimed_at: command.now } };
      case 'ReleaseCustomerKey':
        // Released already, or claimed since by the next customer of that email: nothing of ours to release.
        if (state.holder !== command.customerId) return [];
        return { type: 'CustomerKeyReleased', data: { customer_id: command.customerId, released_at: command.now } };
    }
  },
};
