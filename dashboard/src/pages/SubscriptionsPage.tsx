import { useEffect, useState } from 'preact/hooks';
import { api, type Paged } from '../api.ts';
import { actorLabel, eventLabel } from '../actors.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, Select } from '../components/Field.tsx';
import { ErrorNotice, Loading } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { Pagination, Table } from '../components/Table.tsx';
import { formatDate, formatDateTime, formatDateTimeSeconds, formatMoney } from '../format.ts';
import type { PageProps } from '../routes.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { useSession } from '../session.ts';
import type { Member, Subscription, SubscriptionHistory, SubscriptionInvoice, SubscriptionStatement } from '../types.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

const STATUSES = ['trialing', 'active', 'past_due', 'unpaid', 'paused', 'incomplete', 'canceled', 'incomplete_expired'] as const;
const label = (status: string) => status.replace('_', ' ');

/** `P1M` → "month", `P3M` → "3 months". */
function per(interval: string): string {
  const m = /^P(\d+)([DWMY])$/.exec(interval);
  if (!m) return interval;
  const unit = { D: 'day', W: 'week', M: 'month', Y: 'year' }[m[2] as 'D' | 'W' | 'M' | 'Y'];
  return m[1] === '1' ? unit : `${m[1]} ${unit}s`;
}

const price = (s: Pick<Subscription, 'amount' | 'currency' | 'plan'>) => `${formatMoney(s.amount, s.currency)} / ${per(s.plan.invoice_interval)}`;

/** Subscriptions, newest first, by status and buyer email (in the URL). */
export function SubscriptionsPage() {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const email = query.get('email') ?? '';
  const page = Math.max(1, Number(query.get('page')) || 1);
  const filtered = Boolean(status || email);
  const [form, setForm] = useState({ status, email });
  useEffect(() => setForm({ status, email }), [status, email]);
  const list = useApi<Paged<Subscription>>('/subscriptions', { page, per_page: 25, status, customer_email: email });

  return (
    <>
      <PageHeader title="Subscriptions" description="Every subscription a checkout of a recurring plan started: whether the buyer has access, what they pay, when it renews." />
      <form
        class="filters card"
        role="search"
        aria-label="Filter subscriptions"
        onSubmit={(e) => {
          e.preventDefault();
          setQuery({ ...form, page: null });
        }}
      >
        <Field label="Status" name="status" error={list.error}>
          {(c) => (
            <Select {...c} value={form.status} onValue={(v) => setForm({ ...form, status: v })}>
              <option value="">All</option>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {label(s)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Buyer email" name="customer_email" error={list.error}>
          {(c) => <Input {...c} type="email" placeholder="buyer@example.com" value={form.email} onValue={(v) => setForm({ ...form, email: v })} />}
        </Field>
        <div class="actions">
          <Button type="submit" variant="primary">
            Filter
          </Button>
          {filtered && (
            <Button variant="ghost" onClick={() => setQuery({ status: null, email: null, page: null })}>
              Clear
            </Button>
          )}
        </div>
      </form>
      {list.error && !Object.keys(list.error.fields).length && <ErrorNotice error={list.error} />}
      {!list.data && list.loading && <Loading />}
      {list.data && (
        <>
          <Table
            caption="Subscriptions"
            busy={list.loading}
            rows={list.data.data}
            rowKey={(s) => s.id}
            columns={[
              {
                header: 'Buyer',
                cell: (s) => (
                  <Link href={`/dashboard/subscriptions/${encodeURIComponent(s.id)}`} class="row-link">
                    {s.customer.email ?? s.customer.name ?? s.id}
                    <span class="row-sub mono wide-only">{s.id}</span>
                  </Link>
                ),
              },
              { header: 'Status', cell: (s) => <Badge status={s.status}>{label(s.status)}</Badge> },
              { header: 'Access', cell: (s) => (s.entitled ? 'Yes' : 'No') },
              { header: 'Plan', wide: true, cell: (s) => s.plan.name },
              { header: 'Price', align: 'right', cell: (s) => <span class="nowrap">{price(s)}</span> },
              { header: 'Period ends', wide: true, cell: (s) => <span class="nowrap">{s.ended_at ? '—' : formatDate(s.current_period_end)}</span> },
              { header: 'Started', wide: true, cell: (s) => <span class="nowrap">{formatDateTime(s.created_at)}</span> },
            ]}
            empty={
              filtered ? (
                <EmptyState title="No subscription matches these filters" action={<Button onClick={() => setQuery({ status: null, email: null, page: null })}>Clear the filters</Button>}>
                  Try another status, or the email as the buyer typed it.
                </EmptyState>
              ) : (
                <EmptyState title="No subscriptions yet" action={<Link href="/dashboard/offers" class="btn btn-primary">Go to Offers</Link>}>
                  A buyer who completes the checkout of a recurring plan starts one.
                </EmptyState>
              )
            }
          />
          <Pagination meta={list.data.meta} onPage={(p) => setQuery({ page: p })} label="Subscriptions pages" />
        </>
      )}
    </>
  );
}

type ActionKind = 'cancel_at_period_end' | 'reactivate' | 'pause' | 'resume' | 'cancel' | 'cancel_refund';

/**
 * A subscription: where it stands and the seller's actions, its statement as of any moment of its
 * history (the slider: `?as_of=` in the URL), its invoices and its timeline.
 */
export function SubscriptionPage({ params }: PageProps) {
  const id = encodeURIComponent(params.id!);
  const { query } = useLocation();
  const detail = useApi<Subscription>(`/subscriptions/${id}`);
  const history = useApi<SubscriptionHistory>(`/subscriptions/${id}/history`);
  const asOfParam = query.get('as_of');
  const asOf = asOfParam !== null && /^\d+$/.test(asOfParam) ? Number(asOfParam) : null;
  const statement = useApi<SubscriptionStatement>(`/subscriptions/${id}/statement`, { as_of: asOf ?? undefined });
  const invoices = useApi<Paged<SubscriptionInvoice>>(`/subscriptions/${id}/invoices`, { per_page: 100 });
  const members = useApi<{ data: Member[] }>('/members');
  const owner = useSession()?.current_organization?.role === 'owner';
  const action = useAction<ActionKind>();
  const back = <Link href="/dashboard/subscriptions">← Subscriptions</Link>;

  if (detail.error) {
    return (
      <>
        <PageHeader title="Subscription" back={back} />
        {detail.error.status === 404 ? (
          <EmptyState title="No such subscription in this organization" action={<Link href="/dashboard/subscriptions">Back to Subscriptions</Link>}>
            The link may belong to another organization: switch organization, or find the subscription in Subscriptions.
          </EmptyState>
        ) : (
          <ErrorNotice error={detail.error} />
        )}
      </>
    );
  }
  if (!detail.data) {
    return (
      <>
        <PageHeader title="Subscription" back={back} />
        <Loading />
      </>
    );
  }
  const s = detail.data;
  const ended = s.status === 'canceled' || s.status === 'incomplete_expired';
  const act = async (kind: ActionKind, path: string, body: unknown = {}) => {
    const done = await action.run(kind, () => api.post<Subscription>(`/subscriptions/${id}/${path}`, body));
    if (done) {
      detail.reload();
      history.reload();
      statement.reload();
      invoices.reload();
    }
  };
  const entries = history.data?.data ?? [];
  const index = asOf === null ? entries.length - 1 : entries.reduce((found, e, i) => (e.at <= asOf ? i : found), -1);
  const memberList = members.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Subscription"
        back={back}
        description={
          <span class="id-line">
            <code>{s.id}</code> <CopyButton text={s.id} label="Copy id" />
          </span>
        }
      />
      <div class="grid grid-2">
        <Card title="Subscription" id="subscription">
          <dl class="details">
            <dt>Status</dt>
            <dd>
              <Badge status={s.status}>{label(s.status)}</Badge>
            </dd>
            <dt>Access</dt>
            <dd data-testid="entitled">{s.entitled ? 'Yes: the buyer should have access' : 'No'}</dd>
            <dt>Buyer</dt>
            <dd>{[s.customer.name, s.customer.email].filter(Boolean).join(' · ') || '—'}</dd>
            <dt>Plan</dt>
            <dd>
              {s.plan.name} · {price(s)}
            </dd>
            <dt>Offer</dt>
            <dd>{s.offer.name}</dd>
            <dt>Mode</dt>
            <dd>{s.mode === 'test' ? `Test${s.test_clock ? ` (clock ${s.test_clock})` : ''}` : 'Live'}</dd>
            <dt>Current period</dt>
            <dd>
              {formatDate(s.current_period_start)} – {formatDate(s.current_period_end)}
            </dd>
            {s.trial_end !== null && (
              <>
                <dt>Trial</dt>
                <dd>until {formatDateTime(s.trial_end)}</dd>
              </>
            )}
            {s.cancel_at_period_end && (
              <>
                <dt>Ends</dt>
                <dd>at {formatDateTime(s.cancel_at)} (canceled at period end)</dd>
              </>
            )}
            {s.ended_at !== null && (
              <>
                <dt>Ended</dt>
                <dd>{formatDateTime(s.ended_at)}</dd>
              </>
            )}
            {s.pause_collection && (
              <>
                <dt>Paused</dt>
                <dd>since {formatDateTime(s.pause_collection.paused_at)}: no renewal is invoiced</dd>
              </>
            )}
            {s.payment_method && (
              <>
                <dt>Card</dt>
                <dd>
                  {s.payment_method.brand} •••• {s.payment_method.last4}
                </dd>
              </>
            )}
            {s.next_payment_attempt !== null && (
              <>
                <dt>Next charge</dt>
                <dd>{formatDateTime(s.next_payment_attempt)}</dd>
              </>
            )}
            <dt>Started</dt>
            <dd>{formatDateTime(s.created_at)}</dd>
          </dl>
          {!ended && (
            <div class="actions">
              {s.cancel_at_period_end ? (
                <Button size="sm" busy={action.busy === 'reactivate'} error={action.errorOf('reactivate')} onClick={() => act('reactivate', 'reactivate')}>
                  Reactivate
                </Button>
              ) : (
                s.status !== 'incomplete' && (
                  <Button size="sm" busy={action.busy === 'cancel_at_period_end'} error={action.errorOf('cancel_at_period_end')} onClick={() => act('cancel_at_period_end', 'cancel', { at_period_end: true })}>
                    Cancel at period end
                  </Button>
                )
              )}
              {(s.status === 'active' || s.status === 'trialing') && (
                <Button size="sm" busy={action.busy === 'pause'} error={action.errorOf('pause')} onClick={() => act('pause', 'pause')}>
                  Pause
                </Button>
              )}
              {s.status === 'paused' && (
                <Button size="sm" busy={action.busy === 'resume'} error={action.errorOf('resume')} onClick={() => act('resume', 'resume')}>
                  Resume
                </Button>
              )}
              <ConfirmButton label="Cancel now" what={s.id} onConfirm={() => act('cancel', 'cancel', { at_period_end: false })} />
              {owner && <ConfirmButton label="Cancel now and refund unused time" what={s.id} confirm="Yes, cancel and refund" onConfirm={() => act('cancel_refund', 'cancel', { at_period_end: false, refund: 'prorated' })} />}
            </div>
          )}
          {action.error && (action.failed === 'cancel' || action.failed === 'cancel_refund') && <ErrorNotice error={action.error} />}
        </Card>
        <Card title="Statement" id="statement">
          {entries.length > 1 && (
            <div class="slider">
              <label for="as-of">Statement as of</label>
              <input
                id="as-of"
                type="range"
                min={0}
                max={entries.length - 1}
                step={1}
                value={Math.max(0, index)}
                aria-valuetext={index >= 0 ? `${formatDateTimeSeconds(entries[index]!.at)}: ${eventLabel(entries[index]!.type)}` : 'Before the subscription started'}
                onInput={(e) => {
                  const i = Number((e.target as HTMLInputElement).value);
                  setQuery({ as_of: i === entries.length - 1 ? null : entries[i]!.at }, { replace: true });
                }}
              />
              <output for="as-of" class="slider-output" aria-live="polite">
                {asOf === null ? 'Now' : `${formatDateTimeSeconds(asOf)}${index >= 0 ? ` · after ${eventLabel(entries[index]!.type).toLowerCase()}` : ''}`}
              </output>
            </div>
          )}
          <ErrorNotice error={statement.error} />
          {statement.data && <StatementView statement={statement.data} />}
        </Card>
      </div>
      <Card title="Invoices" id="invoices">
        <ErrorNotice error={invoices.error} />
        {invoices.data && (
          <Table
            caption="Invoices"
            rows={invoices.data.data}
            rowKey={(i) => i.id}
            columns={[
              { header: 'Number', cell: (i) => `#${i.number}` },
              { header: 'Status', cell: (i) => <Badge status={i.status}>{i.status}</Badge> },
              { header: 'Why', wide: true, cell: (i) => i.billing_reason.replace('subscription_', '') },
              { header: 'Period', wide: true, cell: (i) => (i.period ? `${formatDate(i.period.start)} – ${formatDate(i.period.end)}` : '—') },
              { header: 'Attempts', wide: true, cell: (i) => i.attempts.map((a) => (a.outcome === 'failed' ? (a.decline_code ?? a.code ?? 'failed') : 'paid')).join(', ') || '—' },
              { header: 'Amount due', align: 'right', cell: (i) => formatMoney(i.amount_due, i.currency) },
            ]}
            empty={<EmptyState title="No invoices">Its invoices show here as they are made.</EmptyState>}
          />
        )}
      </Card>
      <Card title="History" id="history">
        <ErrorNotice error={history.error} />
        <ol class="timeline">
          {entries.map((entry, i) => (
            <li key={entry.sequence} class={`timeline-item${i === index ? ' current' : ''}${i > index ? ' future' : ''}`} aria-current={i === index ? 'step' : undefined}>
              <span class="timeline-dot" aria-hidden="true" />
              <div class="timeline-body">
                <div class="timeline-head">
                  <span class="timeline-event">{eventLabel(entry.type)}</span>
                  <Badge status={entry.state.status}>{label(entry.state.status)}</Badge>
                </div>
                <p class="timeline-meta">
                  <time>{formatDateTimeSeconds(entry.at)}</time> · {actorLabel(entry.actor, memberList)} · access {entry.state.entitled ? 'yes' : 'no'}
                </p>
              </div>
            </li>
          ))}
        </ol>
      </Card>
    </>
  );
}

const ENTRY_LABELS: Record<string, string> = {
  invoice: 'Invoiced',
  payment: 'Paid',
  payment_failed: 'Payment failed',
  refund: 'Refunded',
  refund_due: 'Refund due',
  uncollectible: 'Given up',
  void: 'Voided',
  plan_change: 'Plan changed',
};

/** The totals and each line of a statement, with its reason. */
function StatementView({ statement }: { statement: SubscriptionStatement }) {
  const c = statement.currency;
  const t = statement.totals;
  if (statement.status === null) return <EmptyState title="Not started yet">The subscription did not exist at that moment.</EmptyState>;
  return (
    <>
      <dl class="details" data-testid="statement-totals">
        <dt>Invoiced</dt>
        <dd>{formatMoney(t.invoiced, c)}</dd>
        <dt>Credited</dt>
        <dd>{formatMoney(t.credited + t.credit_applied, c)}</dd>
        <dt>Paid</dt>
        <dd>{formatMoney(t.paid, c)}</dd>
        {t.refunded > 0 && (
          <>
            <dt>Refunded</dt>
            <dd>{formatMoney(t.refunded, c)}</dd>
          </>
        )}
        <dt>Owed</dt>
        <dd data-testid="statement-owed">{formatMoney(t.owed, c)}</dd>
        {t.refund_due > 0 && (
          <>
            <dt>Refund due</dt>
            <dd>{formatMoney(t.refund_due, c)}</dd>
          </>
        )}
        {t.pending_prorations !== 0 && (
          <>
            <dt>On the next invoice</dt>
            <dd>{formatMoney(t.pending_prorations, c)} of prorations</dd>
          </>
        )}
      </dl>
      <ul class="timeline-changes">
        {statement.entries.map((e, i) => (
          <li key={i}>
            <time>{formatDate(e.at)}</time> · {ENTRY_LABELS[e.type] ?? e.type}
            {'invoice' in e ? ` #${e.invoice.number}` : ''}
            {e.type === 'invoice' && ` · ${formatMoney(e.amount_due, c)}${e.period ? ` for ${formatDate(e.period.start)} – ${formatDate(e.period.end)}` : ''}`}
            {(e.type === 'payment' || e.type === 'refund' || e.type === 'refund_due') && ` · ${formatMoney(e.amount, c)}`}
            {e.type === 'payment_failed' && ` · attempt ${e.attempt}: ${e.decline_code ?? e.code}`}
            {e.type === 'plan_change' && ` · ${e.from.plan_name} → ${e.to.plan_name} (${e.proration_behavior.replace('_', ' ')})`}
          </li>
        ))}
      </ul>
    </>
  );
}
