import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/** What a session is worth, noted when it is created: its completion event carries neither. */
export const SALES_STATS_SESSIONS = 'sales_stats_sessions';
/** What an invoice charged, noted when it is created, so its payment and refunds land in the right mode and currency. */
export const SALES_STATS_INVOICES = 'sales_stats_invoices';
/** Sales per organization, mode and quarter hour (UTC), so any timezone's days add up from whole buckets. */
export const SALES_BUCKETS = 'sales_buckets';

/**
 * A quarter hour: every timezone in use today is offset from UTC by a whole number of quarter
 * hours, so a day in any of them starts on a bucket's boundary.
 */
export const BUCKET_SECONDS = 900;

type StatsSession = { id: string; organization_id: string; mode: string; total: number; currency: string };
type StatsInvoice = { id: string; organization_id: string; mode: string; amount: number; currency: string };

export type SalesBucketDoc = {
  id: string;
  organization_id: string;
  mode: string;
  /** Unix seconds, a multiple of BUCKET_SECONDS. */
  bucket: number;
  created: number;
  completed: number;
  expired: number;
  /** Completed sales' totals in minor units, by currency. */
  amounts: Record<string, number>;
  /** Paid invoices (checkouts' and subscriptions'), what they charged, by currency: at the time of payment. */
  gross?: Record<string, number>;
  /** Refunded, by currency: at the time of the refund. */
  refunds?: Record<string, number>;
};

const bucketOf = (t: number) => Math.floor(t / BUCKET_SECONDS) * BUCKET_SECONDS;

async function bucketDoc(tx: ProjectionTx, organizationId: string, mode: string, at: number): Promise<SalesBucketDoc> {
  const bucket = bucketOf(at);
  const id = `${organizationId}:${mode}:${bucket}`;
  return (await tx.get<SalesBucketDoc>(SALES_BUCKETS, id)) ?? { id, organization_id: organizationId, mode, bucket, created: 0, completed: 0, expired: 0, amounts: {}, gross: {}, refunds: {} };
}

async function addMoney(tx: ProjectionTx, invoice: StatsInvoice, at: number, field: 'gross' | 'refunds', amount: number): Promise<void> {
  const doc = await bucketDoc(tx, invoice.organization_id, invoice.mode, at);
  const sums = doc[field] ?? {};
  tx.upsert(SALES_BUCKETS, { ...doc, [field]: { ...sums, [invoice.currency]: (sums[invoice.currency] ?? 0) + amount } });
}

async function count(tx: ProjectionTx, session: StatsSession, at: number, field: 'created' | 'completed' | 'expired'): Promise<void> {
  const doc = await bucketDoc(tx, session.organization_id, session.mode, at);
  const next: SalesBucketDoc = { ...doc, [field]: doc[field] + 1 };
  if (field === 'completed') next.amounts = { ...doc.amounts, [session.currency]: (doc.amounts[session.currency] ?? 0) + session.total };
  tx.upsert(SALES_BUCKETS, next);
}

/**
 * The dashboard's sales over time: sessions created, completed (with their amounts) and expired
 * per quarter hour; and money, from the invoices' own events: gross (what paid invoices charged,
 * renewals included) when paid, refunds when refunded, so net is their difference. Home reads 30 days as at most 2,880 small documents through the
 * (organization_id, bucket) index, whatever the number of sessions.
 */
export const salesStatsProjection: Projection = {
  name: 'sales_stats',
  version: 2,
  collections: [SALES_STATS_SESSIONS, SALES_STATS_INVOICES, SALES_BUCKETS],
  indexes: [{ collection: SALES_BUCKETS, fields: ['organization_id', 'bucket'] }],
  eventTypes: ['CheckoutSessionCreated', 'CheckoutSessionCompleted', 'CheckoutSessionExpired', 'InvoiceCreated', 'InvoicePaid', 'InvoiceRefunded'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const id = recorded.stream.slice(recorded.stream.indexOf('-') + 1);
    if (recorded.stream.startsWith('invoice-')) {
      await applyInvoice(recorded, id, tx);
      return;
    }
    if (recorded.type === 'CheckoutSessionCreated') {
      const d = recorded.data as { id: string; organization_id: string; mode: string; total: number; currency: string; created_at: number };
      const session: StatsSession = { id: d.id, organization_id: d.organization_id, mode: d.mode, total: d.total, currency: d.currency };
      tx.upsert(SALES_STATS_SESSIONS, session);
      await count(tx, session, d.created_at, 'created');
      return;
    }
    const session = await tx.get<StatsSession>(SALES_STATS_SESSIONS, id);
    if (!session) return;
    if (recorded.type === 'CheckoutSessionCompleted') await count(tx, session, (recorded.data as { completed_at: number }).completed_at, 'completed');
    else await count(tx, session, (recorded.data as { expired_at: number }).expired_at, 'expired');
  },
};

async function applyInvoice(recorded: RecordedEvent, id: string, tx: ProjectionTx): Promise<void> {
  if (recorded.type === 'InvoiceCreated') {
    const d = recorded.data as { id: string; organization_id: string; session_id: string | null; total: number; amount_due?: number; currency: string; mode?: string };
    // A checkout's invoice takes its session's mode; a subscription's names its own.
    const session = d.mode ? null : d.session_id ? await tx.get<StatsSession>(SALES_STATS_SESSIONS, d.session_id) : null;
    tx.upsert(SALES_STATS_INVOICES, { id: d.id, organization_id: d.organization_id, mode: d.mode ?? session?.mode ?? 'test', amount: d.amount_due ?? d.total, currency: d.currency } satisfies StatsInvoice);
    return;
  }
  const invoice = await tx.get<StatsInvoice>(SALES_STATS_INVOICES, id);
  if (!invoice) return;
  // When it was recorded: a subscription on a test clock pays in the clock's time, which no chart of the last days shows.
  const at = recorded.metadata.occurred_at;
  if (recorded.type === 'InvoicePaid') await addMoney(tx, invoice, at, 'gross', invoice.amount);
  else if (recorded.type === 'InvoiceRefunded') await addMoney(tx, invoice, at, 'refunds', (recorded.data as { amount: number }).amount);
}
