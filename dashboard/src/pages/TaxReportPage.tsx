import { Fragment } from 'preact';
import type { z } from 'zod';
import type { TaxReportSchema } from '../../../modules/reporting/index.ts';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, Select } from '../components/Field.tsx';
import { FilterForm, ListStatus, useUrlFilters } from '../components/ListFilter.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { Table } from '../components/Table.tsx';
import { formatMoney } from '../format.ts';
import { Link } from '../router.tsx';
import { useApi } from '../useApi.ts';

type TaxReport = z.infer<typeof TaxReportSchema>;
type Row = TaxReport['data'][number];

const REASONS: Record<string, string> = {
  standard_rated: 'Standard rate',
  reverse_charge: 'Reverse charge',
  not_collecting: 'No tax collected',
  zero_rated: 'Zero rate',
  customer_exempt: 'Customer exempt',
};

let regions: Intl.DisplayNames | null = null;
const countryName = (code: string | null) => {
  if (!code) return 'Unknown';
  try {
    regions ??= new Intl.DisplayNames(['en'], { type: 'region' });
    return `${regions.of(code) ?? code} (${code})`;
  } catch {
    return code;
  }
};

/** The tax report per period, country, rate and reason: paid invoices less their credit notes, with its CSV. */
export function TaxReportPage() {
  const filters = useUrlFilters({ from: '', to: '', interval: 'month', mode: '' }, {});
  const { from, to, interval, mode } = filters.applied;
  const { form, set } = filters;
  const params = { from: from || undefined, to: to || undefined, interval, mode: mode || undefined };
  const report = useApi<TaxReport>('/reports/tax', params);
  const csvQuery = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined)).toString();
  const { filtered } = filters;

  return (
    <>
      <PageHeader
        title="Tax report"
        back={<Link href="/dashboard/sales">← Sales</Link>}
        description="The tax of paid invoices per period, country, rate and reason, less what credit notes gave back: what a VAT return asks for. Check it against your own records before you file."
        actions={
          <a class="btn btn-secondary" id="tax-csv" href={`/manage/api/exports/tax.csv?${csvQuery}`} download>
            Download CSV
          </a>
        }
      />
      <FilterForm label="Tax report period" submit="Show" filters={filters}>
        <Field label="From" name="from" error={report.error}>
          {(c) => <Input {...c} type="date" value={form.from} onValue={set('from')} />}
        </Field>
        <Field label="To" name="to" error={report.error}>
          {(c) => <Input {...c} type="date" value={form.to} onValue={set('to')} />}
        </Field>
        <Field label="Group by" name="interval" error={report.error}>
          {(c) => (
            <Select {...c} value={form.interval} onValue={set('interval')}>
              <option value="month">Month</option>
              <option value="quarter">Quarter</option>
              <option value="year">Year</option>
              <option value="day">Day</option>
            </Select>
          )}
        </Field>
        <Field label="Mode" name="mode" error={report.error}>
          {(c) => (
            <Select {...c} value={form.mode} onValue={set('mode')}>
              <option value="">Test and live</option>
              <option value="live">Live</option>
              <option value="test">Test</option>
            </Select>
          )}
        </Field>
      </FilterForm>
      <ListStatus list={report} />
      {report.data && (
        <>
          <Table<Row>
            caption="Tax per period, country and rate"
            busy={report.loading}
            rows={report.data.data}
            rowKey={(r) => `${r.period}|${r.country}|${r.tax_rate}|${r.taxability_reason}|${r.currency}`}
            columns={[
              { header: 'Period', cell: (r) => <span class="nowrap">{r.period}</span> },
              { header: 'Country', cell: (r) => countryName(r.country) },
              { header: 'Rate', align: 'right', cell: (r) => `${r.tax_rate}%` },
              { header: 'Reason', cell: (r) => REASONS[r.taxability_reason] ?? r.taxability_reason },
              { header: 'Net', align: 'right', cell: (r) => formatMoney(r.taxable_amount, r.currency) },
              { header: 'Tax', align: 'right', cell: (r) => formatMoney(r.tax_amount, r.currency) },
              {
                header: 'Invoices',
                align: 'right',
                wide: true,
                cell: (r) => (
                  <>
                    {r.invoice_count}
                    {r.credit_note_count > 0 && <span class="row-sub">{r.credit_note_count === 1 ? '1 credit note' : `${r.credit_note_count} credit notes`}</span>}
                  </>
                ),
              },
            ]}
            empty={
              <EmptyState title={filtered ? 'No paid invoice in this period' : 'No paid invoice yet'}>
                Paid invoices show here with their tax once buyers pay; turn tax collection on in Settings to charge VAT.
              </EmptyState>
            }
          />
          {report.data.totals.length > 0 && (
            <dl class="details" id="tax-totals" aria-label="Totals">
              {report.data.totals.map((t) => (
                <Fragment key={t.currency}>
                  <dt>Total {t.currency.toUpperCase()}</dt>
                  <dd>
                    Net {formatMoney(t.taxable_amount, t.currency)} · Tax {formatMoney(t.tax_amount, t.currency)}
                  </dd>
                </Fragment>
              ))}
            </dl>
          )}
        </>
      )}
    </>
  );
}
