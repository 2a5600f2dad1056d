import { actorLabel, useMembers, eventLabel } from '../../actors.ts';
import { api } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Card } from '../../components/Card.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice, Loading, Notice } from '../../components/Notice.tsx';
import { RecordPending } from '../../components/RecordPending.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { Table } from '../../components/Table.tsx';
import { TimelineItem } from '../../components/Timeline.tsx';
import { formatDateTime, formatMoney } from '../../format.ts';
import type { PageProps } from '../../routes.ts';
import { Link } from '../../router.tsx';
import { useSession } from '../../session.ts';
import type { Actor } from '../../types.ts';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import type { Customer, CustomerHistory, CustomerInvoices } from '../../../../modules/customers/index.ts';
import { moneyList, OBJECT_WORDS } from './customerKit.ts';
import { CustomerBenefits } from '../benefits/CustomerBenefits.tsx';

const objectHref = (object: string, id: string): string | null => {
  if (object === 'checkout_session') return `/dashboard/sales/${encodeURIComponent(id)}`;
  if (object === 'subscription') return `/dashboard/subscriptions/${encodeURIComponent(id)}`;
  return null;
};

/** A customer: their figures, purchases and invoices, subscriptions, refunds and every event of theirs. */
export function CustomerPage({ params }: PageProps) {
  const id = params.id!;
  const base = `/customers/${encodeURIComponent(id)}`;
  const customer = useApi<Customer>(base);
  const invoices = useApi<CustomerInvoices>(`${base}/invoices`);
  const history = useApi<CustomerHistory>(`${base}/history`);
  const memberList = useMembers();
  const owner = useSession()?.current_organization?.role === 'owner';
  const erase = useAction<'erase'>();
  const back = <Link href="/dashboard/customers">← Customers</Link>;

  if (customer.error || !customer.data) {
    return (
      <RecordPending loaded={customer} title="Customer" what="customer" list={['/dashboard/customers', 'Customers']}>
        The link may belong to another organization: switch organization, or search the customer by email.
      </RecordPending>
    );
  }
  const c = customer.data;
  const rows = invoices.data?.data ?? [];
  const events = history.data?.data ?? [];
  const refunded = rows.filter((i) => i.amount_refunded > 0);
  const returned = events.filter((e) => e.type === 'InvoiceUnowedPaymentRefunded');
  const lastRefundAt = (invoiceId: string) => events.findLast((e) => e.type === 'InvoiceRefunded' && e.object_id === invoiceId)?.occurred_at ?? null;

  return (
    <div class="customer-page">
      <PageHeader
        title={c.redacted ? 'Erased customer' : (c.name ?? c.email ?? 'Customer')}
        back={back}
        description={
          <span class="id-line">
            {!c.redacted && c.name && <span>{c.email}</span>}
            <code>{c.id}</code> <CopyButton text={c.id} label="Copy id" />
            {!c.livemode && <Badge status="test">Test mode</Badge>}
            {c.redacted && <Badge status="void">Erased</Badge>}
          </span>
        }
      />
      <div class="grid grid-2">
        <Card title="Summary" id="summary">
          <dl class="details" data-testid="customer-summary">
            <dt>Email</dt>
            <dd>{c.email ?? '—'}</dd>
            <dt>Name</dt>
            <dd>{c.name ?? '—'}</dd>
            <dt>Purchases</dt>
            <dd>{c.purchases_count}</dd>
            <dt>Spent</dt>
            <dd>{moneyList(c.total_spent)}</dd>
            <dt>Refunded</dt>
            <dd>{moneyList(c.total_refunded)}</dd>
            <dt>Last purchase</dt>
            <dd>{formatDateTime(c.last_purchase_at)}</dd>
            <dt>Customer since</dt>
            <dd>{formatDateTime(c.created_at)}</dd>
          </dl>
        </Card>
        <Card title="Subscriptions" id="subscriptions">
          {c.subscriptions.length === 0 ? (
            <p class="muted">No subscription.</p>
          ) : (
            <ul class="plain-list">
              {c.subscriptions.map((s) => (
                <li key={s.id}>
                  <Link href={`/dashboard/subscriptions/${encodeURIComponent(s.id)}`}>
                    <code>{s.id}</code>
                  </Link>{' '}
                  <Badge status={s.status} />
                </li>
              ))}
            </ul>
          )}
        </Card>
      </div>

      <Card title="Purchases and invoices" id="invoices">
        <ErrorNotice error={invoices.error} />
        {!invoices.data && invoices.loading && <Loading />}
        {invoices.data && (
          <Table
            caption="Invoices made out to this customer"
            rows={rows}
            rowKey={(i) => i.id}
            columns={[
              {
                header: 'Invoice',
                cell: (i) =>
                  i.session_id ? (
                    <Link href={`/dashboard/sales/${encodeURIComponent(i.session_id)}`} class="row-link">
                      #{i.number}
                      <span class="row-sub">Checkout</span>
                    </Link>
                  ) : (
                    <span>
                      #{i.number}
                      <span class="row-sub">Subscription</span>
                    </span>
                  ),
              },
              { header: 'Amount', align: 'right', cell: (i) => formatMoney(i.amount, i.currency) },
              { header: 'Refunded', align: 'right', cell: (i) => (i.amount_refunded ? formatMoney(i.amount_refunded, i.currency) : '—') },
              { header: 'Status', cell: (i) => <Badge status={i.paid_at !== null ? 'paid' : 'open'} /> },
              { header: 'Date', wide: true, cell: (i) => <span class="nowrap">{formatDateTime(i.paid_at ?? i.created_at)}</span> },
            ]}
            empty={<EmptyState title="No invoice yet">Invoices appear here once a purchase of theirs is paid.</EmptyState>}
          />
        )}
      </Card>

      <CustomerBenefits customerId={c.id} />

      <Card title="Refunds" id="refunds">
        {refunded.length === 0 ? (
          <p class="muted">Nothing refunded.</p>
        ) : (
          <ul class="plain-list" data-testid="customer-refunds">
            {refunded.map((i) => (
              <li key={i.id}>
                Invoice #{i.number}: {formatMoney(i.amount_refunded, i.currency)} refunded of {formatMoney(i.amount, i.currency)}
                {lastRefundAt(i.id) !== null && (
                  <>
                    {' '}
                    · <time>{formatDateTime(lastRefundAt(i.id))}</time>
                  </>
                )}
              </li>
            ))}
          </ul>
        )}
        {returned.length > 0 && (
          <p class="muted">
            {returned.length === 1 ? 'One payment was' : `${returned.length} payments were`} returned in full because the invoice could no longer take it (paid twice, or after the checkout
            expired): see the history.
          </p>
        )}
      </Card>

      <Card title="History" id="history">
        <ErrorNotice error={history.error} />
        {!history.data && history.loading && <Loading />}
        {history.data && (
          <ol class="timeline" data-testid="customer-timeline">
            {history.data.data.map((e) => {
              const href = objectHref(e.object, e.object_id);
              return (
                <TimelineItem
                  key={e.position}
                  event={eventLabel(e.type)}
                  at={e.occurred_at}
                  meta={
                    <>
                      {` · ${actorLabel(e.actor as Actor, memberList)} · `}
                      {href ? <Link href={href}>{OBJECT_WORDS[e.object]}</Link> : OBJECT_WORDS[e.object]}
                    </>
                  }
                />
              );
            })}
          </ol>
        )}
      </Card>

      {owner && !c.redacted && (
        <Card title="Erase personal data" id="erase">
          <p class="muted">
            For a GDPR erasure request: their email and name are replaced on this customer, their purchases and invoices; totals and invoice numbers stay. It
            cannot be undone, and a later purchase with the same email makes a new customer.
          </p>
          {erase.error && <ErrorNotice error={erase.error} />}
          <ConfirmButton
            label="Erase"
            what={c.email ?? c.id}
            confirm="Yes, erase for good"
            onConfirm={async () => {
              await erase.run('erase', () => api.post(`${base}/redact`));
              customer.reload();
              invoices.reload();
              history.reload();
            }}
          />
        </Card>
      )}
      {c.redacted && <Notice>This customer was erased on request: their personal data reads as redacted on this page, their purchases and their invoices.</Notice>}
    </div>
  );
}
