import type { Paged } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field, Input, Select } from '../../components/Field.tsx';
import { FilterForm, useUrlFilters } from '../../components/ListFilter.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { PagedTable } from '../../components/Table.tsx';
import { formatDateTime } from '../../format.ts';
import { Link, useLocation } from '../../router.tsx';
import { useApi } from '../../useApi.ts';
import { nextStep, perInterval, STATUS_FILTERS, statusWords } from './subscriptionKit.ts';
import type { SubscriptionResource as Subscription } from '../../../../modules/subscriptions/index.ts';

/** Subscriptions, newest first, by status and buyer email (both in the URL, with the page). */
export function SubscriptionsPage() {
  const { query } = useLocation();
  const filters = useUrlFilters({ status: '', email: '' });
  const { status, email } = filters.applied;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<Paged<Subscription>>('/subscriptions', { page, per_page: 25, status, customer_email: email });

  return (
    <>
      <PageHeader title="Subscriptions" description="Buyers of recurring plans: their status, whether they have access, what they pay and when they are billed next. Open one for its history, invoices and statement." />
      <FilterForm label="Filter subscriptions" filters={filters}>
        <Field label="Status" name="status" error={list.error}>
          {(c) => (
            <Select {...c} value={filters.form.status} onValue={filters.set('status')}>
              <option value="">All</option>
              {STATUS_FILTERS.map((s) => (
                <option key={s} value={s}>
                  {statusWords(s)}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Customer email" name="customer_email" error={list.error}>
          {(c) => <Input {...c} type="email" placeholder="buyer@example.com" value={filters.form.email} onValue={filters.set('email')} />}
        </Field>
      </FilterForm>
      <PagedTable
        caption="Subscriptions"
        list={list}
        pages="Subscriptions pages"
        rowKey={(s) => s.id}
        columns={[
          {
            header: 'Customer',
            cell: (s) => (
              <>
                <Link href={`/dashboard/subscriptions/${encodeURIComponent(s.id)}`} class="row-link">
                  {s.customer.email ?? s.customer.name ?? s.id}
                </Link>
                <span class="row-sub mono wide-only">{s.id}</span>
                <span class="row-sub phone-only">{s.plan.name}</span>
                {(s.mode === 'test' || s.test_clock) && (
                  <span class="sub-tags">
                    {s.mode === 'test' && <Badge status="test">Test</Badge>}
                    {s.test_clock && (
                      <span class="row-sub">
                        Test clock <code>{s.test_clock}</code>
                      </span>
                    )}
                  </span>
                )}
              </>
            ),
          },
          { header: 'Plan', wide: true, cell: (s) => s.plan.name },
          { header: 'Status', cell: (s) => <Badge status={s.status}>{statusWords(s.status)}</Badge> },
          { header: 'Entitled', wide: true, cell: (s) => (s.entitled ? 'Yes' : 'No') },
          { header: 'Amount', align: 'right', cell: (s) => <span class="nowrap">{perInterval(s.amount, s.currency, s.plan.invoice_interval)}</span> },
          {
            header: 'Period end / next attempt',
            wide: true,
            cell: (s) => {
              const next = nextStep(s);
              return (
                <>
                  <span class="row-sub">{next.label}</span>
                  <span class="nowrap">{formatDateTime(next.at)}</span>
                </>
              );
            },
          },
          { header: 'Created', wide: true, cell: (s) => <span class="nowrap">{formatDateTime(s.created_at)}</span> },
        ]}
        empty={
          filters.filtered ? (
            <EmptyState title="No subscription matches these filters" action={<Button onClick={filters.clear}>Clear the filters</Button>}>
              Try another status, or the email exactly as the buyer typed it at checkout.
            </EmptyState>
          ) : (
            <EmptyState title="No subscriptions yet" action={<Link href="/dashboard/catalog" class="btn btn-primary">Go to Catalog</Link>}>
              Give a product a recurring plan (a renewal interval), sell it through an offer: every completed checkout of it starts a subscription here.
            </EmptyState>
          )
        }
      />
    </>
  );
}
