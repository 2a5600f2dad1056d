import type { Decider, DomainEvent } from '../shared/decider.ts';
import { conflict, notFound } from '../shared/domainError.ts';
import { sameCustomer, type CardSummary, type SessionCustomer, type SessionLine } from './checkoutSession.ts';

export type InvoiceStatus = 'open' | 'paid' | 'void';

export type InvoiceEvent =
  | DomainEvent<
      'InvoiceCreated',
      {
        id: string;
        number: number;
        organization_id: string;
        session_id: string;
        lines: SessionLine[];
        total: number;
        currency: string;
        customer: SessionCustomer | null;
        created_at: number;
      }
    >
  | DomainEvent<'InvoiceCustomerChanged', { customer: SessionCustomer; changed_at: number }>
  | DomainEvent<'InvoicePaid', { attempt_id: string; card: CardSummary; paid_at: number }>
  | DomainEvent<'InvoiceVoided', { voided_at: number; reason: string }>;

type Created = Extract<InvoiceEvent, { type: 'InvoiceCreated' }>['data'];

export type InvoiceCommand =
  | { type: 'CreateInvoice'; invoice: Omit<Created, 'created_at' | 'total'>; now: number }
  | { type: 'ChangeInvoiceCustomer'; customer: SessionCustomer; now: number }
  | {
      type: 'PayInvoice';
      attemptId: string;
      card: CardSummary;
      /** The session's customer when the charge was claimed: the paid invoice is made out to them. */
      customer: SessionCustomer | null;
      now: number;
    }
  | { type: 'VoidInvoice'; reason: string; now: number };

export type InvoiceState =
  | { status: 'none' }
  | { status: InvoiceStatus; invoice: Created; paidAttempt: string | null };

export const invoiceStream = (id: string) => `invoice-${id}`;

export const invoiceDecider: Decider<InvoiceState, InvoiceCommand, InvoiceEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'InvoiceCreated':
        return { status: 'open', invoice: event.data, paidAttempt: null };
      case 'InvoiceCustomerChanged':
        return state.status === 'none' ? state : { ...state, invoice: { ...state.invoice, customer: event.data.customer } };
      case 'InvoicePaid':
        return state.status === 'none' ? state : { ...state, status: 'paid', paidAttempt: event.data.attempt_id };
      case 'InvoiceVoided':
        return state.status === 'none' ? state : { ...state, status: 'void' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateInvoice': {
        if (state.status !== 'none') return [];
        const total = command.invoice.lines.reduce((sum, l) => sum + l.amount, 0);
        return { type: 'InvoiceCreated', data: { ...command.invoice, total, created_at: command.now } };
      }
      case 'ChangeInvoiceCustomer':
        if (state.status === 'none') throw notFound('Invoice');
        if (sameCustomer(command.customer, state.invoice.customer)) return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is paid; its customer is final.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void; its customer is final.');
        return { type: 'InvoiceCustomerChanged', data: { customer: command.customer, changed_at: command.now } };
      case 'PayInvoice': {
        if (state.status === 'none') throw notFound('Invoice');
        if (state.paidAttempt === command.attemptId) return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'The invoice is already paid.');
        if (state.status === 'void') throw conflict('invoice_void', 'The invoice is void and cannot be paid.');
        const paid: InvoiceEvent = { type: 'InvoicePaid', data: { attempt_id: command.attemptId, card: command.card, paid_at: command.now } };
        // In the same append as the payment, so no late correction can slip in between.
        if (command.customer === null || sameCustomer(command.customer, state.invoice.customer)) return paid;
        return [{ type: 'InvoiceCustomerChanged', data: { customer: command.customer, changed_at: command.now } }, paid];
      }
      case 'VoidInvoice':
        if (state.status === 'none') throw notFound('Invoice');
        if (state.status === 'void') return [];
        if (state.status === 'paid') throw conflict('invoice_paid', 'A paid invoice cannot be voided.');
        return { type: 'InvoiceVoided', data: { voided_at: command.now, reason: command.reason } };
    }
  },
};
