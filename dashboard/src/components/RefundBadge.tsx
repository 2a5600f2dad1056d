import { formatMoney } from '../format.ts';
import { Badge } from './Badge.tsx';

type Refundable = { status: string; refund_status?: 'refunded' | 'partially_refunded' | null };

const LABEL = { refunded: 'refunded', partially_refunded: 'partially refunded' } as const;

/**
 * A sale's or an invoice's status, a refund outranking `completed` / `paid` (the API keeps the
 * status and says so in `refund_status`, as Stripe does).
 */
export function StatusBadge({ item, status = item.status }: { item: Refundable; status?: string }) {
  const refund = item.refund_status;
  if (refund && (status === 'completed' || status === 'paid')) return <Badge status={refund}>{LABEL[refund]}</Badge>;
  return <Badge status={status} />;
}

/** An amount with what was refunded of it beneath, when anything was. */
export function RefundedAmount({ amount, refunded, currency }: { amount: number; refunded: number; currency: string }) {
  return (
    <>
      {formatMoney(amount, currency)}
      {refunded > 0 && <span class="row-sub">−{formatMoney(refunded, currency)} refunded</span>}
    </>
  );
}
