/** The management routes' answers, as far as the dashboard reads them. */

export type Actor = { type: 'api_key'; id: string; user_id: string } | { type: 'user'; id: string } | { type: 'public'; ip?: string } | { type: 'cli' } | { type: 'system'; name: string };

export type Customer = { email: string | null; name: string | null; user_id?: string | null };
export type Invoice = {
  id: string;
  number: number;
  status: 'open' | 'paid' | 'void';
  total: number;
  currency: string;
  customer?: Customer | null;
  /** Refunded so far (minor units); absent until a first refund. */
  amount_refunded?: number;
  /** Disputes (chargebacks) opened against its payment. */
  disputes?: number;
};

/** An item of GET /checkout/sessions. */
export type SessionItem = {
  id: string;
  status: 'open' | 'completed' | 'expired';
  total: number;
  currency: string;
  mode: 'test' | 'live';
  expires_at: number;
  promo: string | null;
  invoice: Invoice | null;
  created_at: number;
  customer: Customer | null;
  offer: { id: string; slug: string; name: string };
};

/** A session's state (SessionView) as the history holds it after each event. */
export type SessionState = {
  id: string;
  status: 'open' | 'completed' | 'expired';
  total: number;
  currency: string;
  mode: 'test' | 'live';
  expires_at: number;
  created_at: number;
  offer: { uuid: string; id: string; slug: string; name: string };
  customer: Customer | null;
  metadata: Record<string, string>;
  promo: string | null;
  promo_tier: string | null;
  started_at: number | null;
  cancelled_at: number | null;
  completed_at: number | null;
  expired_at: number | null;
  payment: { brand: string; last4: string } | null;
  last_decline: { code: string; decline_code: string | null } | null;
  invoice: Invoice | null;
};

export type HistoryEntry = {
  revision: number;
  type: string;
  stream: 'session' | 'invoice';
  stream_revision: number;
  occurred_at: number;
  actor: Actor;
  state: SessionState;
};

export type SessionDetail = SessionState & { history: HistoryEntry[] };

/** A member, or a person invited (`status: 'invited'`, id `inv_…`) who has not accepted yet. */
export type Member = { id: string; email: string; role: 'owner' | 'member'; status: 'active' | 'invited'; joined_at: number | null; invitation_expires_at: number | null };
