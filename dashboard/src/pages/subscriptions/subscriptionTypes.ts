/**
 * The subscription routes' answers. A subscription and an invoice come from the module's zod
 * schemas (type-only, erased before bundling). The history, statement and metrics routes answer
 * `z.record(…)` schemas and the module's index.ts exports none of their view types
 * (`SubscriptionHistoryEntry`, `Statement`, `SubscriptionMetrics`), so the few fields these
 * screens read are written here; once index.ts exports them, these become type imports.
 */
import type { InvoiceResource, SubscriptionResource } from '../../../../modules/subscriptions/index.ts';
import type { Actor } from '../../types.ts';

export type Subscription = SubscriptionResource;
export type SubscriptionStatus = Subscription['status'];
export type SubscriptionInvoice = InvoiceResource;

/** GET /subscriptions/{id}/history: `at` is the subscription's own time now (its test clock's, if any). */
export type SubscriptionHistory = { subscription_id: string; at: number; state: Subscription | null; data: SubscriptionHistoryEntry[] };
export type SubscriptionHistoryEntry = { sequence: number; type: string; at: number; occurred_at: number; actor: Actor; data: Record<string, unknown>; state: Subscription };

export type Proration = {
  side: 'credit' | 'charge';
  price: number;
  old_price: number;
  new_price: number;
  old_plan: string;
  new_plan: string;
  period_start: number;
  period_end: number;
  changed_at: number;
  seconds_used: number;
  seconds_left: number;
  proration_behavior: string;
  rounding: string;
};
type Period = { start: number; end: number };
export type StatementLine = { name: string; amount: number; reason: 'period' | 'proration' | 'checkout'; period: Period | null; proration: Proration | null };
type InvoiceRef = { id: string; number: number };
export type StatementEntry =
  | { at: number; type: 'invoice'; invoice: InvoiceRef; billing_reason: string; period: Period | null; lines: StatementLine[]; total: number; credit_applied: number; amount_due: number }
  | { at: number; type: 'payment'; invoice: InvoiceRef; attempt: number; amount: number; card: { brand: string; last4: string } | null }
  | { at: number; type: 'payment_failed'; invoice: InvoiceRef; attempt: number; code: string; decline_code: string | null; next_payment_attempt: number | null }
  | { at: number; type: 'refund'; invoice: InvoiceRef; amount: number; reason: 'prorated_cancellation' | 'requested'; proration: Proration | null }
  | { at: number; type: 'refund_due'; invoice: InvoiceRef; amount: number; proration: Proration | null }
  | { at: number; type: 'uncollectible' | 'void'; invoice: InvoiceRef; amount: number }
  | {
      at: number;
      type: 'plan_change';
      from: { plan_id: string; plan_name: string; amount: number };
      to: { plan_id: string; plan_name: string; amount: number };
      proration_behavior: string;
      lines: StatementLine[];
    };
export type StatementTotals = {
  invoiced: number;
  credited: number;
  credit_applied: number;
  amount_due: number;
  paid: number;
  refunded: number;
  owed: number;
  written_off: number;
  credit_balance: number;
  refund_due: number;
  pending_prorations: number;
};
/** GET /subscriptions/{id}/statement?as_of= */
export type Statement = {
  subscription: string;
  as_of: number;
  currency: string;
  status: SubscriptionStatus | null;
  entitled: boolean;
  current_period: Period | null;
  totals: StatementTotals;
  pending_prorations: StatementLine[];
  entries: StatementEntry[];
};

/** GET /metrics/subscriptions?mode= */
export type SubscriptionMetrics = { as_of: number; mode: 'test' | 'live'; mrr: Record<string, number>; active_subscriptions: number; new: number; churned: number; reactivated: number };
