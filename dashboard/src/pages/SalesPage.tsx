import type { Paged } from '../api.ts';
import { RefundedAmount, StatusBadge } from '../components/RefundBadge.tsx';
import { Button } from '../components/Button.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, Select } from '../components/Field.tsx';
import { FilterForm, useUrlFilters } from '../components/ListFilter.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatDateTime, zonedTimeToUnix } from '../format.ts';
import { Link, useLocation } from '../router.tsx';
import type { SessionItem } from '../types.ts';
import { useApi } from '../useApi.ts';

const DAY = 86_400;

/** Checkout sessions, newest first, filtered by status, buyer email and creation dates (all in the URL). */
export function SalesPage() {
  const { query } = useLocation();
  const filters = useUrlFilters({ status: '', email: '', from: '', to: '' });
  const { status, email, from, to } = filters.applied;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<Paged<SessionItem>>('/checkout/sessions', {
    page,
    per_page: 25,
    status,
    email,
    // Dates are days in the organization's time zone; "to" includes its whole day.
    created_from: from ? zonedTimeToUnix(from) : undefined,
    created_to: to ? zonedTimeToUnix(to) + DAY : undefined,
  });

  return (
    <>
      <PageHeader
        title="Sales"
        description="Every checkout session: who bought what, when, and how it went. Open one to see its invoice and its history."
        actions={<ExportLinks from={from} to={to} />}
      />
      <FilterForm label="Filter sessions" filters={filters}>
        <Field label="Status" name="status" error={list.error}>
          {(c) => (
            <Select {...c} value={filters.form.status} onValue={filters.set('status')}>
              <option value="">All</option>
              <option value="open">Open</option>
              <option value="completed">Completed</option>
              <option value="expired">Expired</option>
              <option value="refunded">Refunded</option>
              <option value="partially_refunded">Partially refunded</option>
            </Select>
          )}
        </Field>
        <Field label="Buyer email" name="email" error={list.error}>
          {(c) => <Input {...c} type="email" placeholder="buyer@example.com" value={filters.form.email} onValue={filters.set('email')} />}
        </Field>
        <Field label="Created from" name="created_from" error={list.error}>
          {(c) => <Input {...c} type="date" value={filters.form.from} onValue={filters.set('from')} />}
        </Field>
        <Field label="Created to" name="created_to" error={list.error}>
          {(c) => <Input {...c} type="date" value={filters.form.to} onValue={filters.set('to')} />}
        </Field>
      </FilterForm>
      <PagedTable
        caption="Checkout sessions"
        list={list}
        pages="Sessions pages"
        rowKey={(s) => s.id}
        columns={[
          {
            header: 'Buyer',
            cell: (s) => (
              <Link href={`/dashboard/sales/${encodeURIComponent(s.id)}`} class="row-link">
                {s.customer?.email ?? s.customer?.name ?? 'No email yet'}
                <span class="row-sub mono wide-only">{s.id}</span>
                <span class="row-sub phone-only">{formatDateTime(s.created_at)}</span>
              </Link>
            ),
          },
          { header: 'Status', cell: (s) => <StatusBadge item={s} /> },
          {
            header: 'Amount',
            align: 'right',
            cell: (s) => <RefundedAmount amount={s.total} refunded={s.amount_refunded} currency={s.currency} />,
          },
          { header: 'Offer', wide: true, cell: (s) => s.offer.name },
          { header: 'Invoice', wide: true, cell: (s) => (s.invoice ? `#${s.invoice.number}` : '—') },
          { header: 'Created', wide: true, cell: (s) => <span class="nowrap">{formatDateTime(s.created_at)}</span> },
        ]}
        empty={
          filters.filtered ? (
            <EmptyState title="No session matches these filters" action={<Button onClick={filters.clear}>Clear the filters</Button>}>
              Try another status, another email (as the buyer typed it) or wider dates.
            </EmptyState>
          ) : (
            <EmptyState title="No checkout sessions yet" action={<Link href="/dashboard/offers" class="btn btn-primary">Go to Offers</Link>}>
              Publish an offer and share its checkout link: every checkout started there shows up here.
            </EmptyState>
          )
        }
      />
    </>
  );
}

/**
 * CSV downloads over the dates of the filter (days in the organization's time zone, "to" whole):
 * sales by completion, invoices by creation. Plain links: the browser streams the file to disk.
 */
function ExportLinks({ from, to }: { from: string; to: string }) {
  const range = new URLSearchParams();
  if (from) range.set('from', from);
  if (to) range.set('to', to);
  const query = range.toString() ? `?${range.toString()}` : '';
  const dates = from || to ? ' of these dates' : '';
  return (
    <>
      <a class="btn btn-secondary" href={`/manage/api/exports/sales.csv${query}`} download>
        Export sales{dates} (CSV)
      </a>
      <a class="btn btn-secondary" href={`/manage/api/exports/invoices.csv${query}`} download>
        Export invoices{dates} (CSV)
      </a>
      <Link class="btn btn-secondary" href={`/dashboard/sales/tax${query}`}>
        Tax report
      </Link>
    </>
  );
}
