import type { Paged } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Card } from '../../components/Card.tsx';
import { EmptyState } from '../../components/EmptyState.tsx';
import { ErrorNotice, Loading } from '../../components/Notice.tsx';
import { Table } from '../../components/Table.tsx';
import { formatDateTime } from '../../format.ts';
import { Link } from '../../router.tsx';
import { useApi } from '../../useApi.ts';
import { type Benefit, BENEFIT_TYPE_WORDS, type BenefitGrant, type FileDownloads, isFileBenefit, type LicenseKey, REVOKE_WORDS, SOURCE_WORDS, sourceHref } from './benefitKit.ts';

/** The customer page's Benefits: their grants, license keys and downloads per file. */
export function CustomerBenefits({ customerId }: { customerId: string }) {
  const grants = useApi<{ data: BenefitGrant[] }>('/benefit_grants', { customer: customerId, per_page: 100 });
  const benefits = useApi<{ data: Benefit[] }>('/benefits', { per_page: 100 });
  const keys = useApi<Paged<LicenseKey>>('/license_keys', { customer: customerId, per_page: 100 });
  const rows = grants.data?.data ?? [];
  const benefitOf = (id: string) => benefits.data?.data.find((b) => b.id === id);
  const keyOf = (grantId: string) => keys.data?.data.find((k) => k.grant_id === grantId);
  const fileIds = [
    ...new Set(
      rows.flatMap((g) => {
        const b = benefitOf(g.benefit_id);
        return b && isFileBenefit(b) ? b.properties.files : [];
      }),
    ),
  ];

  return (
    <Card title="Benefits" id="benefits">
      <ErrorNotice error={grants.error} />
      {!grants.data && grants.loading && <Loading />}
      {grants.data && (
        <Table
          caption="Benefits granted to this customer"
          rows={rows}
          rowKey={(g) => g.id}
          columns={[
            {
              header: 'Benefit',
              cell: (g) => {
                const b = benefitOf(g.benefit_id);
                const k = keyOf(g.id);
                return (
                  <>
                    {b ? (
                      <Link href={`/dashboard/catalog/${encodeURIComponent(b.product_id)}#benefits`}>{b.description}</Link>
                    ) : (
                      // A deleted benefit is no longer listed: its id is what is left to tell it by.
                      <>
                        Deleted benefit
                        <span class="row-sub mono any-break">{g.benefit_id}</span>
                      </>
                    )}
                    <span class="row-sub">{BENEFIT_TYPE_WORDS[g.benefit_type]}</span>
                    {k && (
                      <span class="row-sub">
                        <Link href={`/dashboard/license-keys/${encodeURIComponent(k.id)}`}>
                          <code>{k.display_key}</code>
                        </Link>
                      </span>
                    )}
                  </>
                );
              },
            },
            {
              header: 'Source',
              cell: (g) => (
                <Link href={sourceHref(g.source)}>
                  {SOURCE_WORDS[g.source.type]}
                </Link>
              ),
            },
            {
              header: 'Status',
              cell: (g) => (
                <>
                  {g.status === 'granted' ? <Badge status="active">Granted</Badge> : <Badge status="revoked">Revoked</Badge>}
                  {g.revoke_cause && <span class="row-sub">{REVOKE_WORDS[g.revoke_cause]}</span>}
                </>
              ),
            },
            {
              header: 'When',
              wide: true,
              cell: (g) => (
                <>
                  <span class="nowrap">Granted {formatDateTime(g.granted_at)}</span>
                  {g.revoked_at !== null && <span class="row-sub nowrap">Revoked {formatDateTime(g.revoked_at)}</span>}
                </>
              ),
            },
          ]}
          empty={<EmptyState title="No benefits granted">A buyer gets a product's benefits when they pay for it.</EmptyState>}
        />
      )}
      {fileIds.length > 0 && <Downloads customerId={customerId} fileIds={fileIds} />}
    </Card>
  );
}

/** How often this customer downloaded each file of their benefits. */
function Downloads({ customerId, fileIds }: { customerId: string; fileIds: string[] }) {
  return (
    <div class="customer-downloads">
      <h3>Downloads</h3>
      <ul class="plain-list" data-testid="customer-downloads">
        {fileIds.map((id) => (
          <FileDownloadLine key={id} customerId={customerId} fileId={id} />
        ))}
      </ul>
    </div>
  );
}

function FileDownloadLine({ customerId, fileId }: { customerId: string; fileId: string }) {
  const file = useApi<{ filename: string }>(`/files/${encodeURIComponent(fileId)}`);
  // Per buyer, latest first: a buyer past the first 100 is not told apart from one who never downloaded.
  const downloads = useApi<FileDownloads>(`/files/${encodeURIComponent(fileId)}/downloads`, { per_page: 100 });
  const more = downloads.data !== undefined && downloads.data.meta.total > downloads.data.data.length;
  const mine = downloads.data?.data.find((d) => d.customer_id === customerId);
  return (
    <li>
      {file.data?.filename ?? <code>{fileId}</code>}:{' '}
      {downloads.error ? (
        <span class="muted">download count unavailable</span>
      ) : !downloads.data ? (
        <span class="muted">…</span>
      ) : mine && mine.count > 0 ? (
        <>
          downloaded {mine.count === 1 ? 'once' : `${mine.count} times`}, last {formatDateTime(mine.last_downloaded_at)}
        </>
      ) : more ? (
        <span class="muted">not among the latest 100 buyers who downloaded it</span>
      ) : (
        'not downloaded yet'
      )}
    </li>
  );
}
