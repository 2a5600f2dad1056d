import type { PageProps } from '../routes.ts';
import { actorLabel, useMembers, eventLabel } from '../actors.ts';
import { Badge } from '../components/Badge.tsx';
import { Card } from '../components/Card.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { RecordPending } from '../components/RecordPending.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { RefundForm } from '../components/RefundForm.tsx';
import { StatusBadge } from '../components/RefundBadge.tsx';
import { TimelineItem } from '../components/Timeline.tsx';
import { CreditNotes } from '../components/CreditNotes.tsx';
import { formatDateTime, formatDateTimeSeconds, formatMoney } from '../format.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { useSession } from '../session.ts';
import { changes, entryIndexAt, momentOf, statusAt } from '../timeline.ts';
import type { Invoice, SessionDetail, SessionState } from '../types.ts';
import { useApi } from '../useApi.ts';

/** A checkout session: its invoice and its history; the slider shows it as it stood at `?at=`. */
export function SessionPage({ params }: PageProps) {
  const { query } = useLocation();
  const detail = useApi<SessionDetail>(`/checkout/sessions/${encodeURIComponent(params.id!)}`);
  const memberList = useMembers();
  const owner = useSession()?.current_organization?.role === 'owner';
  const back = <Link href="/dashboard/sales">← Sales</Link>;

  if (detail.error || !detail.data) {
    return (
      <RecordPending loaded={detail} title="Checkout session" what="session" list={['/dashboard/sales', 'Sales']}>
        The link may belong to another organization: switch organization, or find the session in Sales.
      </RecordPending>
    );
  }
  const { history } = detail.data;
  const atParam = query.get('at');
  const at = atParam !== null && /^\d+$/.test(atParam) ? Number(atParam) : null;
  const rev = query.get('rev') !== null ? Number(query.get('rev')) : null;
  const index = entryIndexAt(history, at, rev);
  const latest = index === history.length - 1 && at === null;
  const moment = at ?? Math.floor(Date.now() / 1000);
  const state: SessionState | null = index >= 0 ? history[index]!.state : null;

  const select = (i: number) => {
    const m = momentOf(history, i);
    setQuery(i === history.length - 1 ? { at: null, rev: null } : { at: m.at, rev: m.rev }, { replace: true });
  };

  return (
    <>
      <PageHeader
        title="Checkout session"
        back={back}
        description={
          <span class="id-line">
            <code>{detail.data.id}</code> <CopyButton text={detail.data.id} label="Copy id" />
          </span>
        }
      />

        <div class="slider card">
          <label for="moment">View the session as it stood at</label>
          <input
            id="moment"
            type="range"
            min={0}
            max={history.length - 1}
            step={1}
            value={Math.max(0, index)}
            aria-valuetext={index >= 0 ? `${formatDateTimeSeconds(history[index]!.occurred_at)}: ${eventLabel(history[index]!.type)}` : 'Before the session existed'}
            onInput={(e) => select(Number((e.target as HTMLInputElement).value))}
          />
          <output for="moment" class="slider-output" aria-live="polite">
            {index < 0 ? 'Before the session existed' : latest ? `Now (after ${eventLabel(history[index]!.type).toLowerCase()})` : `${formatDateTimeSeconds(at!)} · after ${eventLabel(history[index]!.type).toLowerCase()}`}
          </output>
          {!latest && (
            <button type="button" class="btn btn-ghost btn-sm" onClick={() => setQuery({ at: null, rev: null }, { replace: true })}>
              Back to now
            </button>
          )}
        </div>
      {state && (
        <div class="grid grid-2">
          <Card title={latest ? 'Session' : 'Session at that moment'} id="session">
            <dl class="details">
              <dt>Status</dt>
              <dd>
                <StatusBadge item={{ status: statusAt(state, moment), refund_status: state.invoice?.refund_status ?? null }} />
              </dd>
              <dt>Amount</dt>
              <dd>{formatMoney(state.total, state.currency)}</dd>
              <dt>Offer</dt>
              <dd>{state.offer.name}</dd>
              <dt>Buyer</dt>
              <dd>{[state.customer?.name, state.customer?.email].filter(Boolean).join(' · ') || '—'}</dd>
              <dt>Mode</dt>
              <dd>{state.mode === 'test' ? 'Test' : 'Live'}</dd>
              <dt>Created</dt>
              <dd>{formatDateTime(state.created_at)}</dd>
              <dt>Expires</dt>
              <dd>{formatDateTime(state.expires_at)}</dd>
              {state.completed_at && (
                <>
                  <dt>Completed</dt>
                  <dd>{formatDateTime(state.completed_at)}</dd>
                </>
              )}
              {state.payment && (
                <>
                  <dt>Card</dt>
                  <dd>
                    {state.payment.brand} •••• {state.payment.last4}
                  </dd>
                </>
              )}
              {state.last_decline && (
                <>
                  <dt>Last decline</dt>
                  <dd>{state.last_decline.decline_code ?? state.last_decline.code}</dd>
                </>
              )}
              {state.promo && (
                <>
                  <dt>Promo</dt>
                  <dd>
                    {state.promo}
                    {state.promo_tier ? ` (${state.promo_tier})` : ''}
                  </dd>
                </>
              )}
              {Object.keys(state.metadata ?? {}).length > 0 && (
                <>
                  <dt>Metadata</dt>
                  <dd>
                    {Object.entries(state.metadata).map(([k, v]) => (
                      <div key={k}>
                        <code>{k}</code>: {v}
                      </div>
                    ))}
                  </dd>
                </>
              )}
            </dl>
          </Card>
          <Card title="Invoice" id="invoice">
            {state.invoice ? (
              <dl class="details">
                <dt>Number</dt>
                <dd>#{state.invoice.number}</dd>
                <dt>Status</dt>
                <dd>
                  <StatusBadge item={state.invoice} />
                </dd>
                <PricingDetails pricing={state.invoice.pricing ?? null} currency={state.invoice.currency} />
                <dt>Total</dt>
                <dd>{formatMoney(state.invoice.total, state.invoice.currency)}</dd>
                <dt>Billed to</dt>
                <dd>{[state.invoice.customer?.name, state.invoice.customer?.email].filter(Boolean).join(' · ') || '—'}</dd>
                <BuyerTaxDetails pricing={state.invoice.pricing ?? null} />
                {(state.invoice.amount_refunded ?? 0) > 0 && (
                  <>
                    <dt>Refunded</dt>
                    <dd>
                      {formatMoney(state.invoice.amount_refunded, state.invoice.currency)}
                      {state.invoice.amount_refunded! >= state.invoice.total ? ' (in full)' : ` of ${formatMoney(state.invoice.total, state.invoice.currency)}`}
                    </dd>
                    <dt>Credit notes</dt>
                    <dd>
                      <CreditNotes key={state.invoice.amount_refunded} invoiceId={state.invoice.id} />
                    </dd>
                  </>
                )}
                {(state.invoice.disputes ?? 0) > 0 && (
                  <>
                    <dt>Disputes</dt>
                    <dd>
                      <Badge status="failed">{state.invoice.disputes === 1 ? '1 dispute' : `${state.invoice.disputes} disputes`}</Badge>
                      <span class="row-sub">{state.mode === 'live' ? "Answer it in Stripe's dashboard." : ''}</span>
                    </dd>
                  </>
                )}
                <dt>Id</dt>
                <dd>
                  <code>{state.invoice.id}</code>
                </dd>
              </dl>
            ) : null}
            {state.invoice && latest && owner && state.invoice.status === 'paid' && <RefundForm invoice={state.invoice} onRefunded={detail.reload} />}
            {!state.invoice && (
              <EmptyState title="No invoice yet">The invoice is made when the buyer starts the checkout.</EmptyState>
            )}
          </Card>
        </div>
      )}
      <Card title="History" id="history">
        <ol class="timeline">
          {history.map((entry, i) => (
            <TimelineItem
              key={entry.revision}
              event={eventLabel(entry.type)}
              onSelect={() => select(i)}
              selectLabel={`View the session after ${eventLabel(entry.type).toLowerCase()}`}
              badges={<StatusBadge item={{ status: statusAt(entry.state, entry.occurred_at), refund_status: entry.state.invoice?.refund_status ?? null }} />}
              at={entry.occurred_at}
              meta={` · ${actorLabel(entry.actor, memberList)}`}
              changes={changes(i > 0 ? history[i - 1]!.state : null, entry.state)}
              current={i === index}
              future={i > index && '(after the moment shown)'}
            />
          ))}
        </ol>
      </Card>
    </>
  );
}

type Pricing = NonNullable<Invoice['pricing']>;

/** The subtotal, the discount with its code and the tax, as checkout recorded them (nothing when neither applied). */
function PricingDetails({ pricing, currency }: { pricing: Pricing | null; currency: string }) {
  if (!pricing) return null;
  const code = pricing.discount ? (pricing.discount.promotion_code?.code ?? pricing.discount.coupon.name ?? pricing.discount.coupon.id) : null;
  const tax = pricing.tax;
  const reverse = tax?.taxability_reason === 'reverse_charge';
  return (
    <>
      <dt>Subtotal</dt>
      <dd id="invoice-subtotal">{formatMoney(pricing.subtotal, currency)}</dd>
      {(pricing.total_discount > 0 || code) && (
        <>
          <dt>Discount{code ? ` (${code})` : ''}</dt>
          <dd id="invoice-discount">−{formatMoney(pricing.total_discount, currency)}</dd>
        </>
      )}
      {tax && (
        <>
          <dt>{reverse ? 'Reverse charge' : `VAT ${tax.tax_rate?.percentage ?? tax.percentage}%${tax.behavior === 'inclusive' ? ' (included)' : ''}`}</dt>
          <dd id="invoice-tax">{formatMoney(pricing.total_tax, currency)}</dd>
        </>
      )}
    </>
  );
}

/** The buyer's business name, country and VAT number, when they gave them. */
function BuyerTaxDetails({ pricing }: { pricing: Pricing | null }) {
  const details = pricing?.customer_details;
  if (!details) return null;
  const parts = [details.business_name, details.address?.country, details.tax_id ? `VAT ${details.tax_id.value}` : null].filter(Boolean);
  if (!parts.length) return null;
  return (
    <>
      <dt>Tax details</dt>
      <dd id="invoice-tax-details">
        {parts.join(' · ')}
        {details.tax_exempt === 'reverse' && <span class="row-sub">Reverse charge: the buyer accounts for the VAT.</span>}
      </dd>
    </>
  );
}
