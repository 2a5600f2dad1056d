import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';

/** What a session is worth, noted when it is created: its completion event carries neither. */
export const SALES_STATS_SESSIONS = 'sales_stats_sessions';
/** Sales per organization, mode and quarter hour (UTC), so any timezone's days add up from whole buckets. */
export const SALES_BUCKETS = 'sales_buckets';

/**
 * A quarter hour: every timezone in use today is offset from UTC by a whole number of quarter
 * hours, so a day in any of them starts on a bucket's boundary.
 */
export const BUCKET_SECONDS = 900;

type StatsSession = { id: string; organization_id: string; mode: string; total: number; currency: string };

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
};

const bucketOf = (t: number) => Math.floor(t / BUCKET_SECONDS) * BUCKET_SECONDS;

async function count(tx: ProjectionTx, session: StatsSession, at: number, field: 'created' | 'completed' | 'expired'): Promise<void> {
  const bucket = bucketOf(at);
  const id = `${session.organization_id}:${session.mode}:${bucket}`;
  const doc = (await tx.get<SalesBucketDoc>(SALES_BUCKETS, id)) ?? {
    id,
    organization_id: session.organization_id,
    mode: session.mode,
    bucket,
    created: 0,
    completed: 0,
    expired: 0,
    amounts: {},
  };
  const next: SalesBucketDoc = { ...doc, [field]: doc[field] + 1 };
  if (field === 'completed') next.amounts = { ...doc.amounts, [session.currency]: (doc.amounts[session.currency] ?? 0) + session.total };
  tx.upsert(SALES_BUCKETS, next);
}

/**
 * The dashboard's sales over time: sessions created, completed (with their amounts) and expired
 * per quarter hour. Home reads 30 days as at most 2,880 small documents through the
 * (organization_id, bucket) index, whatever the number of sessions.
 */
export const salesStatsProjection: Projection = {
  name: 'sales_stats',
  collections: [SALES_STATS_SESSIONS, SALES_BUCKETS],
  indexes: [{ collection: SALES_BUCKETS, fields: ['organization_id', 'bucket'] }],
  eventTypes: ['CheckoutSessionCreated', 'CheckoutSessionCompleted', 'CheckoutSessionExpired'],
  async apply(recorded: RecordedEvent, tx: ProjectionTx) {
    const id = recorded.stream.slice(recorded.stream.indexOf('-') + 1);
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
