import type { Paged } from '../../api.ts';
import { actorLabel, useMembers } from '../../actors.ts';
import { Badge } from '../../components/Badge.tsx';
import { RefundedAmount, StatusBadge } from '../../components/RefundBadge.tsx';
import { TimelineItem } from '../../components/Timeline.tsx';
import { Card } from '../../components/Card.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice, Loading } from '../../components/Notice.tsx';
import { RecordPending } from '../../components/RecordPending.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { PagedTable } from '../../components/Table.tsx';
import { formatDate, formatDateTime, formatMoney } from '../../format.ts';
import type { PageProps } from '../../routes.ts';
import { Link, setQuery, useLocation } from '../../router.tsx';
import { useSession } from '../../session.ts';
import { useApi } from '../../useApi.ts';
import { StatementCard } from './StatementCard.tsx';
import { SubscriptionActions } from './SubscriptionActions.tsx';
import { TestClockCard } from './TestClockCard.tsx';
import { BILLING_REASONS, intervalWords, perInterval, statusWords, subscriptionChanges, subscriptionEventLabel } from './subscriptionKit.ts';
import type { InvoiceResource as SubscriptionInvoice, SubscriptionResource as Subscription, SubscriptionHistory } from '../../../../modules/subscriptions/index.ts';

/** A subscription: its state, actions, invoices, statement as of `?as_of=` (its own time) and history. */
export function SubscriptionPage({ params }: PageProps) {
  const id = params.id!;
  const base = `/subscriptions/${encodeURIComponent(id)}`;
  const { query } = useLocation();
  const invoicePage = Math.max(1, Number(query.get('invoices_page')) || 1);
  const sub = useApi<Subscription>(base);
  const history = useApi<SubscriptionHistory>(`${base}/history`);
  const invoices = useApi<Paged<SubscriptionInvoice>>(`${base}/invoices`, { page: invoicePage, per_page: 25 });
  const memberList = useMembers();
  const owner = useSession()?.current_organization?.role === 'owner';
  const back = <Link href="/dashboard/subscriptions">← Subscriptions</Link>;
  const asOfParam = query.get('as_of');
  const asOf = asOfParam !== null && /^\d+$/.test(asOfParam) ? Number(asOfParam) : null;
  // After an action everything shown asks again; the statement follows the history's length.
  const refresh = () => {
    sub.reload();
    history.reload();
    invoices.reload();
  };

  if (sub.error || !sub.data) {
    return (
      <RecordPending loaded={sub} title="Subscription" what="subscription" list={['/dashboard/subscriptions', 'Subscriptions']}>
        The link may belong to another organization: switch organization, or find the subscription in the list.
      </RecordPending>
    );
  }
  const s = sub.data;
  // The subscription's own time: its test clock's frozen time when it lives on one.
  const now = history.data?.at ?? null;
  const entries = history.data?.data ?? [];

  return (
    <>
      <PageHeader
        title="Subscription"
        back={back}
        description={
          <span class="id-line">
            <span>{s.customer.email ?? s.customer.name ?? 'No email'}</span>
            <code>{s.id}</code> <CopyButton text={s.id} label="Copy id" />
            {s.mode === 'test' && <Badge status="test">Test mode</Badge>}
          </span>
        }
      />
      <div class="grid grid-2">
        <Card title="Summary" id="summary">
          <dl class="details" data-testid="subscription-summary">
            <dt>Status</dt>
            <dd>
              <Badge status={s.status}>{statusWords(s.status)}</Badge>
            </dd>
            <dt>Entitled</dt>
            <dd>{s.entitled ? 'Yes: the buyer has access' : 'No: the buyer has no access'}</dd>
            <dt>Customer</dt>
            <dd>{[s.customer.name, s.customer.email].filter(Boolean).join(' · ') || '—'}</dd>
            <dt>Plan</dt>
            <dd>
              {s.plan.name}
              <span class="row-sub">
                billed every {intervalWords(s.plan.invoice_interval)}
                {s.plan.renew_interval && s.plan.renew_interval !== s.plan.invoice_interval ? `, renews every ${intervalWords(s.plan.renew_interval)}` : ''} · offer {s.offer.name}
              </span>
            </dd>
            <dt>Amount</dt>
            <dd>{perInterval(s.amount, s.currency, s.plan.invoice_interval)}</dd>
            <dt>Current period</dt>
            <dd>
              {formatDateTime(s.current_period_start)} – {formatDateTime(s.current_period_end)}
            </dd>
            {s.trial_end !== null && (
              <>
                <dt>Trial</dt>
                <dd>
                  {formatDate(s.trial_start)} – {formatDateTime(s.trial_end)}
                </dd>
              </>
            )}
            {(s.cancel_at_period_end || s.cancel_at !== null || s.canceled_at !== null) && (
              <>
                <dt>Cancellation</dt>
                <dd>
                  {s.cancel_at_period_end ? `Cancels at the end of the term: ${formatDateTime(s.cancel_at)}` : s.canceled_at !== null ? `Canceled ${formatDateTime(s.canceled_at)}` : `Cancel at ${formatDateTime(s.cancel_at)}`}
                </dd>
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
                <dd>Since {formatDateTime(s.pause_collection.paused_at)}: nothing is invoiced</dd>
              </>
            )}
            <dt>Latest invoice</dt>
            <dd>
              {s.latest_invoice ? (
                <>
                  #{s.latest_invoice.number} <Badge status={s.latest_invoice.status} />
                </>
              ) : (
                '—'
              )}
            </dd>
            <dt>Next payment attempt</dt>
            <dd>{formatDateTime(s.next_payment_attempt)}</dd>
            {s.payment_method && (
              <>
                <dt>Card</dt>
                <dd>
                  {s.payment_method.brand} •••• {s.payment_method.last4} (expires {String(s.payment_method.exp_month).padStart(2, '0')}/{s.payment_method.exp_year})
                </dd>
              </>
            )}
            {s.test_clock && (
              <>
                <dt>Test clock</dt>
                <dd>
                  <code>{s.test_clock}</code>
                  <span class="row-sub" data-testid="clock-time">
                    Its time: {now === null ? '…' : formatDateTime(now)}
                  </span>
                  <span class="row-sub">It lives in the clock's time: advance the clock (below) to bill what falls due.</span>
                </dd>
              </>
            )}
            <dt>Created</dt>
            <dd>{formatDateTime(s.created_at)}</dd>
          </dl>
        </Card>
        <SubscriptionActions subscription={s} owner={owner} onDone={refresh} />
      </div>

      {s.mode === 'test' && s.test_clock && <TestClockCard subscription={s} onAdvanced={refresh} />}

      <Card title="Invoices" id="invoices">
        <ErrorNotice error={invoices.error} />
        {!invoices.data && invoices.loading && <Loading />}
        <PagedTable
          caption="Invoices of this subscription"
          busy={invoices.loading}
          page={invoices.data}
          pages="Invoices pages"
          pageKey="invoices_page"
          rowKey={(i) => i.id}
          columns={[
            { header: 'Number', cell: (i) => <span class="nowrap">#{i.number}</span> },
            { header: 'Reason', cell: (i) => BILLING_REASONS[i.billing_reason] ?? i.billing_reason },
            { header: 'Period', wide: true, cell: (i) => (i.period ? <span class="nowrap">{`${formatDate(i.period.start)} – ${formatDate(i.period.end)}`}</span> : '—') },
            { header: 'Due', align: 'right', cell: (i) => formatMoney(i.amount_due, i.currency) },
            {
              header: 'Paid',
              align: 'right',
              wide: true,
              cell: (i) => <RefundedAmount amount={i.amount_paid} refunded={i.amount_refunded} currency={i.currency} />,
            },
            { header: 'Status', cell: (i) => <StatusBadge item={i} /> },
            {
              header: 'Attempts',
              wide: true,
              cell: (i) => {
                const last = i.attempts.at(-1);
                return (
                  <>
                    {i.attempt_count}
                    {last && last.outcome === 'failed' && <span class="row-sub">last declined: {last.decline_code ?? last.code ?? 'declined'}</span>}
                    {i.next_payment_attempt !== null && <span class="row-sub">next {formatDateTime(i.next_payment_attempt)}</span>}
                  </>
                );
              },
            },
          ]}
          empty={<EmptyState title="No invoice yet">A trial's first invoice is made when the trial ends.</EmptyState>}
        />
      </Card>

      <StatementCard base={base} subscription={s} moments={entries.map((e) => e.at)} now={now} asOf={asOf} version={entries.length} />

      <Card title="History" id="history">
        <ErrorNotice error={history.error} />
        {!history.data && history.loading && <Loading />}
        <ol class="timeline">
          {entries.map((entry, i) => (
            <TimelineItem
              key={entry.sequence}
              event={subscriptionEventLabel(entry.type)}
              onSelect={() => {
                setQuery({ as_of: entry.at }, { replace: true });
                document.getElementById('statement-title')?.scrollIntoView({ block: 'start' });
              }}
              selectLabel={`${subscriptionEventLabel(entry.type)}: show the statement as of then`}
              badges={
                <>
                  <Badge status={entry.state.status}>{statusWords(entry.state.status)}</Badge>
                  <span class="row-sub">{entry.state.entitled ? 'entitled' : 'not entitled'}</span>
                </>
              }
              at={entry.at}
              meta={`${Math.abs(entry.occurred_at - entry.at) > 60 ? ` (recorded ${formatDateTime(entry.occurred_at)})` : ''} · ${actorLabel(entry.actor, memberList)}`}
              changes={subscriptionChanges(i > 0 ? entries[i - 1]!.state : null, entry.state)}
              current={asOf !== null && entry.at <= asOf && (entries[i + 1]?.at ?? Infinity) > asOf}
              future={asOf !== null && entry.at > asOf && "(after the statement's instant)"}
            />
          ))}
        </ol>
      </Card>
    </>
  );
}
