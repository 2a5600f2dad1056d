import { useEffect, useState } from 'preact/hooks';
import { api, type Paged } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { CopyButton } from '../../components/CopyButton.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { Field, Select } from '../../components/Field.tsx';
import { FilterForm, useUrlFilters } from '../../components/ListFilter.tsx';
import { Notice } from '../../components/Notice.tsx';
import { RecordPending } from '../../components/RecordPending.tsx';
import { PageHeader } from '../../components/PageHeader.tsx';
import { PagedTable, Table } from '../../components/Table.tsx';
import { formatDateTime } from '../../format.ts';
import { Link, useLocation } from '../../router.tsx';
import type { PageProps } from '../../routes.ts';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import type { Customer } from '../../../../modules/customers/index.ts';
import { activations, type Benefit, isLicenseBenefit, type LicenseKey } from './benefitKit.ts';

const STATUSES: [LicenseKey['status'], string][] = [
  ['active', 'Active'],
  ['inactive', 'Inactive (not activated yet)'],
  ['expired', 'Expired'],
  ['disabled', 'Disabled'],
];
const STATUS_WORDS: Record<LicenseKey['status'], string> = { active: 'Active', inactive: 'Inactive', expired: 'Expired', disabled: 'Disabled' };

export const StatusBadge = ({ status }: { status: LicenseKey['status'] }) => <Badge status={status === 'inactive' ? 'draft' : status}>{STATUS_WORDS[status]}</Badge>;

const keyHref = (k: Pick<LicenseKey, 'id'>) => `/dashboard/license-keys/${encodeURIComponent(k.id)}`;

/** The license benefits of the organization, for the filter and to name a key's benefit. */
function useLicenseBenefits() {
  const list = useApi<{ data: Benefit[] }>('/benefits', { type: 'license_key', per_page: 100 });
  return (list.data?.data ?? []).filter(isLicenseBenefit);
}

/** Disable or enable a key; answers the key as it now is. */
function useToggle(onDone: (k: LicenseKey) => void) {
  const action = useAction<string>();
  const toggle = (k: LicenseKey) =>
    action.run(k.id, async () => {
      const next = await api.post<LicenseKey>(`/license_keys/${encodeURIComponent(k.id)}/${k.status === 'disabled' ? 'enable' : 'disable'}`);
      onDone(next);
    });
  return { action, toggle };
}

function ToggleButton({ k, busy, error, onClick }: { k: LicenseKey; busy: boolean; error: Error | null; onClick: () => void }) {
  const masked = k.display_key;
  // A revoked grant's key stays off: enabling it is refused (the buyer was refunded, or the subscription ended).
  if (k.revoked) return <span class="muted nowrap">Grant revoked</span>;
  return (
    <Button size="sm" variant={k.status === 'disabled' ? 'secondary' : 'danger'} busy={busy} error={error} onClick={onClick} aria-label={`${k.status === 'disabled' ? 'Enable' : 'Disable'} ${masked}`}>
      {k.status === 'disabled' ? 'Enable' : 'Disable'}
    </Button>
  );
}

/** The license keys issued to buyers: filter by status and benefit, disable or enable one. */
export function LicenseKeysPage() {
  const { query } = useLocation();
  const filters = useUrlFilters({ status: '', benefit: '' });
  const { status, benefit } = filters.applied;
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<Paged<LicenseKey>>('/license_keys', { page, per_page: 25, status: status || undefined, benefit: benefit || undefined });
  const benefits = useLicenseBenefits();
  const { action, toggle } = useToggle(() => list.reload());
  const benefitName = (id: string) => benefits.find((b) => b.id === id)?.description ?? id;

  return (
    <>
      <PageHeader title="License keys" description="One key per buyer of a product with a license key benefit. Disable a key to stop it validating; enable it to let it work again." />
      <FilterForm label="Filter license keys" filters={filters}>
        <Field label="Status" name="status" error={list.error}>
          {(c) => (
            <Select {...c} value={filters.form.status} onValue={filters.set('status')}>
              <option value="">Any status</option>
              {STATUSES.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </Select>
          )}
        </Field>
        <Field label="Benefit" name="benefit" error={list.error}>
          {(c) => (
            <Select {...c} value={filters.form.benefit} onValue={filters.set('benefit')}>
              <option value="">Any benefit</option>
              {benefits.map((b) => (
                <option key={b.id} value={b.id}>
                  {b.description}
                </option>
              ))}
              {benefit && !benefits.some((b) => b.id === benefit) && <option value={benefit}>{benefit}</option>}
            </Select>
          )}
        </Field>
      </FilterForm>
      <PagedTable
        caption="License keys"
        list={list}
        pages="License key pages"
        rowKey={(k) => k.id}
        columns={[
          {
            header: 'Key',
            cell: (k) => (
              <Link href={keyHref(k)} class="row-link">
                <code class="license-key">{k.display_key}</code>
                <span class="row-sub">{benefitName(k.benefit_id)}</span>
              </Link>
            ),
          },
          {
            header: 'Customer',
            wide: true,
            cell: (k) => (
              <Link href={`/dashboard/customers/${encodeURIComponent(k.customer_id)}`}>
                <code>{k.customer_id}</code>
              </Link>
            ),
          },
          {
            header: 'Status',
            cell: (k) => (
              <>
                <StatusBadge status={k.status} />
                {/* The Activations column is left out on a phone: its figure here. */}
                <span class="row-sub phone-only nowrap">{activations(k.activation_usage, k.activation_limit)} activations</span>
              </>
            ),
          },
          { header: 'Activations', align: 'right', wide: true, cell: (k) => <span class="nowrap">{activations(k.activation_usage, k.activation_limit)}</span> },
          { header: 'Expires', wide: true, cell: (k) => <span class="nowrap">{k.expires_at ? formatDateTime(k.expires_at) : 'Never'}</span> },
          { header: 'Actions', cell: (k) => <ToggleButton k={k} busy={action.busy === k.id} error={action.errorOf(k.id)} onClick={() => toggle(k)} /> },
        ]}
        empty={
          filters.filtered ? (
            <EmptyState title="No key matches these filters" action={<Button onClick={filters.clear}>Show every key</Button>} />
          ) : (
            <EmptyState title="No license keys yet" action={<Link href="/dashboard/catalog" class="btn btn-primary">Go to Catalog</Link>}>
              Give a product a license key benefit: each buyer then gets a key when they pay.
            </EmptyState>
          )
        }
      />
    </>
  );
}

/** A key: its terms, who has it, its activations; disable or enable. */
export function LicenseKeyPage({ params }: PageProps) {
  const id = params.id!;
  const loaded = useApi<LicenseKey>(`/license_keys/${encodeURIComponent(id)}`);
  const benefits = useLicenseBenefits();
  const customer = useApi<Customer>(loaded.data ? `/customers/${encodeURIComponent(loaded.data.customer_id)}` : null);
  const [key, setKey] = useState<LicenseKey | null>(null);
  useEffect(() => setKey(loaded.data ?? null), [loaded.data]);
  const [saved, setSaved] = useState<string | null>(null);
  const { action, toggle } = useToggle((next) => {
    setSaved(next.status === 'disabled' ? 'Key disabled: it no longer validates.' : 'Key enabled: it validates again.');
    // The answer of disable/enable leaves the plain key out: keep the one the page has.
    setKey((k) => (k?.key !== undefined && next.key === undefined ? { ...next, key: k.key } : next));
  });
  const back = <Link href="/dashboard/license-keys">← License keys</Link>;

  if (loaded.error || !key) return <RecordPending loaded={loaded} title="License key" what="license key" list={['/dashboard/license-keys', 'License keys']} />;
  const k = key;
  const benefit = benefits.find((b) => b.id === k.benefit_id);
  const instances = k.activations ?? [];
  return (
    <>
      <PageHeader
        title={k.display_key}
        back={back}
        description={
          <span class="id-line">
            <code>{k.id}</code> <StatusBadge status={k.status} />
          </span>
        }
        actions={<ToggleButton k={k} busy={action.busy === k.id} error={action.errorOf(k.id)} onClick={() => void toggle(k)} />}
      />
      {saved && <Notice tone="success">{saved}</Notice>}
      <div class="grid grid-2">
        <Card title="Key" id="key">
          <dl class="details" data-testid="license-key-details">
            <dt>Key</dt>
            <dd>
              <RevealKey k={k} />
            </dd>
            <dt>Benefit</dt>
            <dd>{benefit ? <Link href={`/dashboard/catalog/${encodeURIComponent(benefit.product_id)}#benefits`}>{benefit.description}</Link> : <code>{k.benefit_id}</code>}</dd>
            <dt>Customer</dt>
            <dd>
              <Link href={`/dashboard/customers/${encodeURIComponent(k.customer_id)}`}>{customer.data?.email ?? <code>{k.customer_id}</code>}</Link>
            </dd>
            <dt>Status</dt>
            <dd>
              <StatusBadge status={k.status} />
              {k.revoked ? ' The grant was revoked (a refund, an ended subscription or a deleted benefit).' : k.disabled_by_seller ? ' Disabled by you.' : ''}
            </dd>
            <dt>Activations</dt>
            <dd>{activations(k.activation_usage, k.activation_limit)}</dd>
            <dt>Expires</dt>
            <dd>{k.expires_at ? formatDateTime(k.expires_at) : 'Never'}</dd>
            <dt>Issued</dt>
            <dd>{formatDateTime(k.created)}</dd>
          </dl>
        </Card>
        <Card title="Activations" id="activations">
          <Table
            caption="Activations"
            rows={instances}
            rowKey={(a) => a.id}
            columns={[
              {
                header: 'Instance',
                cell: (a) => (
                  <>
                    {a.name}
                    <span class="row-sub mono">{a.id}</span>
                    <span class="row-sub phone-only">Activated {formatDateTime(a.created_at)}</span>
                  </>
                ),
              },
              { header: 'Activated', wide: true, cell: (a) => <span class="nowrap">{formatDateTime(a.created_at)}</span> },
            ]}
            empty={<p class="muted">Not activated on any device yet.</p>}
          />
        </Card>
      </div>
    </>
  );
}

/** The key in plain only on request (a buyer who lost it asks): masked on screen by default. */
function RevealKey({ k }: { k: LicenseKey }) {
  const [shown, setShown] = useState(false);
  if (!k.key) return <code class="license-key">{k.display_key}</code>;
  return (
    <span class="reveal-key">
      <code class={`license-key${shown ? ' plain' : ''}`} data-testid="license-key-value">
        {shown ? k.key : k.display_key}
      </code>
      <Button size="sm" variant="ghost" onClick={() => setShown(!shown)} aria-pressed={shown}>
        {shown ? 'Hide key' : 'Show key'}
      </Button>
      {shown && <CopyButton text={k.key} label="Copy key" />}
    </span>
  );
}
