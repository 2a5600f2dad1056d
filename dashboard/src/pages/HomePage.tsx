import { useState } from 'preact/hooks';
import type { Paged } from '../api.ts';
import { RefundedAmount, StatusBadge } from '../components/RefundBadge.tsx';
import { Card, StatCard } from '../components/Card.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { ErrorNotice, Loading } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PendingInvitations } from '../components/PendingInvitations.tsx';
import { OutboxBanner } from '../components/OutboxBanner.tsx';
import { SalesChart } from '../components/SalesChart.tsx';
import { Table } from '../components/Table.tsx';
import { formatDateTime, formatMoney } from '../format.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import type { SessionItem } from '../types.ts';
import type { z } from 'zod';
import type { SalesStatsSchema } from '../../../modules/reporting/index.ts';
import { useApi } from '../useApi.ts';
import { LOCALE } from '../locale.ts';
import { SubscriptionFigures } from './subscriptions/SubscriptionFigures.tsx';

type Stats = z.infer<typeof SalesStatsSchema>;

const n = (v: number) => new Intl.NumberFormat(LOCALE).format(v);

/** Amounts of several currencies, each in its own; none is zero in the organization's main one. */
const amounts = (a: Record<string, number>, main: string) =>
  Object.keys(a).length
    ? Object.entries(a)
        .map(([c, v]) => formatMoney(v, c))
        .join(' · ')
    : formatMoney(0, main);

/** The sales' amounts, or once anything was refunded, what is left of them and what went back. */
const afterRefunds = (d: Pick<Stats['totals'], 'amounts' | 'refunds' | 'net'>, main: string) =>
  Object.values(d.refunds).some((v) => v > 0) ? `${amounts(d.net, main)} net · ${amounts(d.refunds, main)} refunded` : amounts(d.amounts, main);

export function HomePage() {
  const session = useSession();
  const stats = useApi<Stats>('/stats/sales', { days: 30 });
  const latest = useApi<Paged<SessionItem>>('/checkout/sessions', { status: 'completed', per_page: 5 });
  const failing = useApi<Paged<unknown>>('/workflows', { status: 'failed', per_page: 1 });
  const totals = stats.data?.totals;
  const currencies = totals ? [...new Set([...Object.keys(totals.gross), ...Object.keys(totals.amounts)])].sort((a, b) => (totals.gross[b] ?? 0) - (totals.gross[a] ?? 0)) : [];
  const [picked, setPicked] = useState<string | null>(null);
  const currency = picked && currencies.includes(picked) ? picked : (currencies[0] ?? 'USD');
  const today = stats.data?.days.at(-1);

  return (
    <>
      <PageHeader title="Home" description={`Your sales at a glance. Days run in ${session?.current_organization?.timezone ?? 'your organization’s time zone'}.`} />
      <PendingInvitations />
      <OutboxBanner />
      <ErrorNotice error={stats.error} />
      {!stats.data && stats.loading && <Loading />}
      {stats.data && today && (
        <>
          <div class="grid grid-4">
            <StatCard label="Sales today" value={n(today.completed)} testId="sales-today">
              <p class="stat-sub">{afterRefunds(today, currency)}</p>
            </StatCard>
            <StatCard label="Last 30 days" value={n(stats.data.totals.completed)} testId="sales-30">
              <p class="stat-sub">{afterRefunds(stats.data.totals, currency)}</p>
            </StatCard>
            <StatCard label="Net revenue, 30 days" value={amounts(stats.data.totals.net, currency)} testId="net-30">
              <p class="stat-sub">
                <span data-testid="gross-30">{amounts(stats.data.totals.gross, currency)}</span> paid −{' '}
                <span data-testid="refunds-30">{amounts(stats.data.totals.refunds, currency)}</span> refunded
              </p>
            </StatCard>
            <StatCard label="Checkout sessions" value={`${n(stats.data.open_sessions)} open`}>
              <p class="stat-sub">
                {n(stats.data.totals.completed)} completed · {n(stats.data.totals.expired)} expired in 30 days
              </p>
            </StatCard>
            <StatCard label="Failing workflows" value={failing.data ? n(failing.data.meta.total) : '—'} bad={!!failing.data?.meta.total}>
              <p class="stat-sub">{failing.data?.meta.total ? <Link href="/dashboard/automation">Look at them in Automation</Link> : 'Every automation ran fine.'}</p>
            </StatCard>
            <SubscriptionFigures currency={currency} />
          </div>
          <Card
            title="Sales per day"
            id="chart"
            actions={
              currencies.length > 1 ? (
                <label class="inline-select">
                  <span class="sr-only">Currency</span>
                  <select class="input" value={currency} onChange={(e) => setPicked((e.target as HTMLSelectElement).value)}>
                    {currencies.map((c) => (
                      <option key={c}>{c}</option>
                    ))}
                  </select>
                </label>
              ) : undefined
            }
          >
            <SalesChart days={stats.data.days.map((d) => ({ date: d.date, completed: d.completed, amount: d.amounts[currency] ?? 0 }))} currency={currency} />
          </Card>
        </>
      )}
      <Card title="Latest sales" id="latest" actions={<Link href="/dashboard/sales?status=completed">View all</Link>}>
        <ErrorNotice error={latest.error} />
        <Table
          caption="Latest sales"
          rows={latest.data?.data}
          rowKey={(s) => s.id}
          columns={[
            {
              header: 'Buyer',
              cell: (s) => (
                <Link href={`/dashboard/sales/${encodeURIComponent(s.id)}`} class="row-link">
                  {s.customer?.email ?? s.customer?.name ?? s.id}
                  <span class="row-sub phone-only">{formatDateTime(s.created_at)}</span>
                </Link>
              ),
            },
            { header: 'Offer', wide: true, cell: (s) => s.offer.name },
            { header: 'Status', wide: true, cell: (s) => <StatusBadge item={s} /> },
            {
              header: 'Amount',
              align: 'right',
              cell: (s) => <RefundedAmount amount={s.total} refunded={s.amount_refunded} currency={s.currency} />,
            },
            { header: 'Created', wide: true, cell: (s) => <span class="nowrap">{formatDateTime(s.created_at)}</span> },
          ]}
          empty={
            <EmptyState title="No sales yet" action={<Link href="/dashboard/offers" class="btn btn-primary">Set up an offer</Link>}>
              Publish an offer and share its checkout link or SDK button. Paid checkouts appear here the moment they complete.
            </EmptyState>
          }
        />
      </Card>
    </>
  );
}
