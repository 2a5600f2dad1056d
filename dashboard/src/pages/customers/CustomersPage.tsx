import type { Paged } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field, Input } from '../../components/Field.tsx';
import { FilterForm, useUrlFilters } from '../../components/ListFilter.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { PagedTable } from '../../components/Table.tsx';
import { formatDateTime } from '../../format.ts';
import { Link, useLocation } from '../../router.tsx';
import { useApi } from '../../useApi.ts';
import type { Customer } from '../../../../modules/customers/index.ts';
import { moneyList } from './customerKit.ts';

/** The organization's customers, newest first, searched by email (in the URL, as Sales). */
export function CustomersPage() {
  const { query } = useLocation();
  const filters = useUrlFilters({ email: '' });
  const { email } = filters.applied;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<Paged<Customer>>('/customers', { page, per_page: 25, email: email || undefined });

  return (
    <>
      <PageHeader
        title="Customers"
        description="Everyone who bought from you: one customer per person, however many times they bought. Open one to see their purchases, subscriptions, refunds and history."
        actions={
          // A plain link: the browser streams the file to disk (one line per customer and currency).
          <a class="btn btn-secondary" href="/manage/api/exports/customers.csv" download>
            Export customers (CSV)
          </a>
        }
      />
      <FilterForm label="Find a customer" submit="Search" filters={filters}>
        <Field label="Email" name="email" error={list.error}>
          {(c) => <Input {...c} type="email" placeholder="buyer@example.com" value={filters.form.email} onValue={filters.set('email')} />}
        </Field>
      </FilterForm>
      <PagedTable
        caption="Customers"
        list={list}
        pages="Customers pages"
        rowKey={(c) => c.id}
        columns={[
          {
            header: 'Customer',
            cell: (c) => (
              <Link href={`/dashboard/customers/${encodeURIComponent(c.id)}`} class="row-link">
                {c.redacted ? 'Erased customer' : (c.email ?? c.name ?? c.id)}
                <span class="row-sub">{c.redacted ? c.id : (c.name ?? '')}</span>
                <span class="row-sub mono wide-only">{c.redacted ? '' : c.id}</span>
              </Link>
            ),
          },
          { header: 'Purchases', align: 'right', cell: (c) => String(c.purchases_count) },
          { header: 'Spent', align: 'right', cell: (c) => <span class="nowrap">{moneyList(c.total_spent)}</span> },
          { header: 'Refunded', align: 'right', wide: true, cell: (c) => <span class="nowrap">{moneyList(c.total_refunded)}</span> },
          { header: 'Last purchase', wide: true, cell: (c) => <span class="nowrap">{formatDateTime(c.last_purchase_at)}</span> },
          { header: 'Mode', wide: true, cell: (c) => (c.livemode ? 'Live' : <Badge status="test">Test</Badge>) },
        ]}
        empty={
          email ? (
            <EmptyState title="No customer has this email" action={<Button onClick={filters.clear}>Show every customer</Button>}>
              Check the spelling: the search ignores case, not typos.
            </EmptyState>
          ) : (
            <EmptyState title="No customers yet" action={<Link href="/dashboard/sales" class="btn btn-primary">Go to Sales</Link>}>
              A customer appears with their first paid checkout.
            </EmptyState>
          )
        }
      />
    </>
  );
}
