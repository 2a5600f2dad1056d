import type { z } from 'zod';
import { useState } from 'preact/hooks';
import type { ManagedProductSchema } from '../../../modules/catalog/index.ts';
import type { Coupon, PromotionCode } from '../../../modules/discounts/index.ts';
import { api, type Paged } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { RecordPending } from '../components/RecordPending.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable, Table } from '../components/Table.tsx';
import { formatDateTime, formatMoney, zonedTimeToUnix } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { toMinor } from './pageKit.tsx';

type Product = Pick<z.infer<typeof ManagedProductSchema>, 'id' | 'key' | 'name' | 'display_name' | 'status'>;

/** "20% off" or "€5.00 off". */
export const couponOff = (c: Pick<Coupon, 'percent_off' | 'amount_off' | 'currency'>) => (c.percent_off !== null ? `${c.percent_off}% off` : `${formatMoney(c.amount_off, c.currency)} off`);

/** How long a subscription gets it. */
const DURATION_WORDS = { once: 'Once', forever: 'Forever', repeating: 'For months' } as const;
export const couponDuration = (c: Pick<Coupon, 'duration' | 'duration_in_months'>) =>
  c.duration === 'repeating' ? `For ${c.duration_in_months} month${c.duration_in_months === 1 ? '' : 's'}` : DURATION_WORDS[c.duration];

/** "3 / 100" or "3" (no limit). */
const redeemed = (times: number, max: number | null) => (max === null ? String(times) : `${times} / ${max}`);

const restrictionWords = (r: Coupon['restrictions']) =>
  [r.first_time_transaction ? 'First purchase only' : '', r.minimum_amount !== null ? `Orders from ${formatMoney(r.minimum_amount, r.minimum_amount_currency)}` : ''].filter(Boolean).join(' · ') || '—';

const productName = (list: Product[] | undefined, id: string) => {
  const p = list?.find((x) => x.id === id);
  return p ? (p.display_name ?? p.name ?? p.key) : id;
};

/** Coupons: the discounts a seller gives, with how often each was redeemed. */
export function CouponsPage() {
  const { query } = useLocation();
  const page = Math.max(1, Number(query.get('page')) || 1);
  const list = useApi<Paged<Coupon>>('/coupons', { page, per_page: 25 });
  const create = (
    <Link class="btn btn-primary" href="/dashboard/coupons/new">
      New coupon
    </Link>
  );
  return (
    <>
      <PageHeader title="Coupons" description="A percentage or an amount off, handed out as promotion codes buyers type at checkout (LAUNCH20). Limits count completed purchases." actions={create} />
      <PagedTable
        caption="Coupons"
        list={list}
        pages="Coupon pages"
        rowKey={(c) => c.id}
        columns={[
          {
            header: 'Coupon',
            cell: (c) => (
              <Link href={`/dashboard/coupons/${encodeURIComponent(c.id)}`} class="row-link">
                {c.name ?? c.id}
                <span class="row-sub mono">{c.id}</span>
              </Link>
            ),
          },
          { header: 'Discount', cell: (c) => <span class="nowrap">{couponOff(c)}</span> },
          { header: 'Duration', wide: true, cell: (c) => couponDuration(c) },
          { header: 'Redeemed', align: 'right', cell: (c) => <span data-testid="times-redeemed">{redeemed(c.times_redeemed, c.max_redemptions)}</span> },
          { header: 'Redeem by', wide: true, cell: (c) => <span class="nowrap">{c.redeem_by ? formatDateTime(c.redeem_by) : '—'}</span> },
          { header: 'Status', cell: (c) => (c.valid ? <Badge status="active">Valid</Badge> : <Badge status="expired">Used up or expired</Badge>) },
        ]}
        empty={
          <EmptyState title="No coupons yet" action={create}>
            Create a coupon, then give it a code such as LAUNCH20 for buyers to type at checkout.
          </EmptyState>
        }
      />
    </>
  );
}

const num = (v: string) => (v.trim() === '' ? undefined : Number(v.replace(',', '.')));

/** A new coupon: the discount, how long a subscription keeps it, its limits and what it applies to. */
export function NewCouponPage() {
  const { fields, set } = useFields({ id: '', name: '', kind: 'percent' as 'percent' | 'amount', value: '', currency: 'EUR', duration: 'once' as Coupon['duration'], months: '', max: '', redeemBy: '', chosen: [] as string[], firstTime: false, minimum: '', minimumCurrency: 'EUR' });
  const { id, name, kind, value, currency, duration, months, max, redeemBy, chosen, firstTime, minimum, minimumCurrency } = fields;
  const products = useApi<Paged<Product>>('/products', { page: 1, per_page: 100 });
  const { busy, error, run } = useAction<'save'>();

  const save = async (event: Event) => {
    event.preventDefault();
    const body = {
      ...(id.trim() ? { id: id.trim() } : {}),
      ...(name.trim() ? { name: name.trim() } : {}),
      // Left out when empty: the server then says a discount is needed, beside this field.
      ...(kind === 'percent' ? { percent_off: num(value) } : { amount_off: value.trim() ? toMinor(value, currency) : undefined, currency }),
      duration,
      ...(duration === 'repeating' ? { duration_in_months: num(months) ?? Number.NaN } : {}),
      ...(max.trim() ? { max_redemptions: num(max) } : {}),
      ...(redeemBy ? { redeem_by: zonedTimeToUnix(redeemBy, '23:59') } : {}),
      ...(chosen.length ? { applies_to: { products: chosen } } : {}),
      ...(firstTime || minimum.trim()
        ? { restrictions: { first_time_transaction: firstTime, ...(minimum.trim() ? { minimum_amount: toMinor(minimum, minimumCurrency), minimum_amount_currency: minimumCurrency } : {}) } }
        : {}),
    };
    await run(
      'save',
      async () => {
        const created = await api.post<Coupon>('/coupons', body);
        navigate(`/dashboard/coupons/${encodeURIComponent(created.id)}`, { replace: true });
      },
      { keepBusy: true },
    );
  };
  const productList = (products.data?.data ?? []).filter((p) => p.status === 'active');
  const shown = ['id', 'name', 'percent_off', 'amount_off', 'currency', 'duration', 'duration_in_months', 'max_redemptions', 'redeem_by', 'applies_to.products', 'restrictions.minimum_amount', 'restrictions.minimum_amount_currency'];
  return (
    <>
      <PageHeader title="New coupon" back={<Link href="/dashboard/coupons">← Coupons</Link>} description="Its discount and limits cannot change once it is made (as Stripe's); its name can." />
      <form onSubmit={save} noValidate aria-label="New coupon">
        <Card title="Discount" id="discount">
          <div class="form-row align-top">
            <Field label="Name (shown to buyers)" name="name" error={error}>
              {(c) => <Input {...c} value={name} onValue={set('name')} placeholder="Launch week" maxLength={40} />}
            </Field>
            <Field label="Id (optional)" name="id" error={error} hint="Letters, digits, - and _; generated when left empty.">
              {(c) => <Input {...c} value={id} onValue={set('id')} autoComplete="off" />}
            </Field>
          </div>
          <div class="form-row align-top">
            <Field label="Type" name="kind">
              {(c) => (
                <Select {...c} value={kind} onValue={(v) => set('kind')(v as 'percent' | 'amount')}>
                  <option value="percent">Percentage off</option>
                  <option value="amount">Amount off</option>
                </Select>
              )}
            </Field>
            <Field label={kind === 'percent' ? 'Percent off' : 'Amount off'} name={kind === 'percent' ? 'percent_off' : 'amount_off'} error={error}>
              {(c) => <Input {...c} value={value} onValue={set('value')} inputMode="decimal" placeholder={kind === 'percent' ? '20' : '5.00'} />}
            </Field>
            {kind === 'amount' && (
              <Field label="Currency" name="currency" error={error}>
                {(c) => <Input {...c} value={currency} onValue={(v) => set('currency')(v.toUpperCase())} maxLength={3} />}
              </Field>
            )}
          </div>
          <div class="form-row align-top">
            <Field label="Duration (subscriptions)" name="duration" error={error} hint="One-time purchases get it once whatever you choose.">
              {(c) => (
                <Select {...c} value={duration} onValue={(v) => set('duration')(v as Coupon['duration'])}>
                  <option value="once">Once: the first payment</option>
                  <option value="repeating">For a number of months</option>
                  <option value="forever">Forever: every payment</option>
                </Select>
              )}
            </Field>
            {duration === 'repeating' && (
              <Field label="Months" name="duration_in_months" error={error}>
                {(c) => <Input {...c} value={months} onValue={set('months')} inputMode="numeric" />}
              </Field>
            )}
          </div>
        </Card>
        <Card title="Limits" id="limits">
          <div class="form-row align-top">
            <Field label="Redemptions in all (optional)" name="max_redemptions" error={error} hint="Across all its codes; purchases under way hold one.">
              {(c) => <Input {...c} value={max} onValue={set('max')} inputMode="numeric" />}
            </Field>
            <Field label="Redeem by (optional)" name="redeem_by" error={error} hint="The end of that day, in the organization's timezone.">
              {(c) => <Input {...c} type="date" value={redeemBy} onValue={set('redeemBy')} />}
            </Field>
          </div>
          <fieldset class="checks">
            <legend>Applies to</legend>
            {productList.length === 0 && <p class="muted">No products yet: the coupon applies to everything.</p>}
            {productList.map((p) => (
              <label key={p.id} class="check">
                <input
                  type="checkbox"
                  checked={chosen.includes(p.id)}
                  onChange={(e) => set('chosen')((e.target as HTMLInputElement).checked ? [...chosen, p.id] : chosen.filter((x) => x !== p.id))}
                />
                {p.display_name ?? p.name ?? p.key} <span class="muted mono">{p.key}</span>
              </label>
            ))}
            <p class="field-hint">None chosen: every product. {error?.field('applies_to.products') && <span class="field-error">{error.field('applies_to.products')}</span>}</p>
          </fieldset>
          <fieldset class="checks">
            <legend>Restrictions</legend>
            <label class="check">
              <input type="checkbox" checked={firstTime} onChange={(e) => set('firstTime')((e.target as HTMLInputElement).checked)} />
              First purchase only (buyers who never completed a purchase with you)
            </label>
          </fieldset>
          <div class="form-row align-top">
            <Field label="Minimum order (optional)" name="restrictions.minimum_amount" error={error}>
              {(c) => <Input {...c} value={minimum} onValue={set('minimum')} inputMode="decimal" placeholder="50.00" />}
            </Field>
            <Field label="Minimum order currency" name="restrictions.minimum_amount_currency" error={error}>
              {(c) => <Input {...c} value={minimumCurrency} onValue={(v) => set('minimumCurrency')(v.toUpperCase())} maxLength={3} />}
            </Field>
          </div>
        </Card>
        <OtherErrors error={error} shown={shown} />
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={busy === 'save'}>
            Create coupon
          </Button>
        </div>
      </form>
    </>
  );
}

/** A coupon: its terms and counts, its promotion codes (create, turn off or on), delete. */
export function CouponPage({ params }: PageProps) {
  const id = params.id!;
  const coupon = useApi<Coupon>(`/coupons/${encodeURIComponent(id)}`);
  const codes = useApi<Paged<PromotionCode>>('/promotion_codes', { coupon: id, per_page: 100 });
  const products = useApi<Paged<Product>>('/products', { page: 1, per_page: 100 });
  const action = useAction<string>();
  const back = <Link href="/dashboard/coupons">← Coupons</Link>;

  if (coupon.error || !coupon.data) {
    return (
      <RecordPending loaded={coupon} title="Coupon" what="coupon" list={['/dashboard/coupons', 'Coupons']}>
        It may have been deleted, or belong to another organization.
      </RecordPending>
    );
  }
  const c = coupon.data;
  const setActive = (code: PromotionCode, active: boolean) =>
    action.run(code.id, async () => {
      await api.post(`/promotion_codes/${encodeURIComponent(code.id)}`, { active });
      codes.reload();
    });
  return (
    <>
      <PageHeader
        title={c.name ?? c.id}
        back={back}
        description={
          <span class="id-line">
            <code>{c.id}</code> {c.valid ? <Badge status="active">Valid</Badge> : <Badge status="expired">Used up or expired</Badge>}
          </span>
        }
        actions={
          <ConfirmButton
            label="Delete"
            what={`coupon ${c.id}`}
            onConfirm={async () => {
              await action.run('delete', async () => {
                await api.delete(`/coupons/${encodeURIComponent(c.id)}`);
                navigate('/dashboard/coupons', { replace: true });
              });
            }}
          />
        }
      />
      <ErrorNotice error={action.errorOf('delete')} />
      <Card title="Terms" id="terms">
        <dl class="details" data-testid="coupon-terms">
          <dt>Discount</dt>
          <dd>{couponOff(c)}</dd>
          <dt>Duration</dt>
          <dd>{couponDuration(c)}</dd>
          <dt>Redeemed</dt>
          <dd>{redeemed(c.times_redeemed, c.max_redemptions)}</dd>
          <dt>Redeem by</dt>
          <dd>{c.redeem_by ? formatDateTime(c.redeem_by) : '—'}</dd>
          <dt>Products</dt>
          <dd>{c.applies_to ? c.applies_to.products.map((ref) => productName(products.data?.data, ref)).join(', ') : 'Every product'}</dd>
          <dt>Restrictions</dt>
          <dd>{restrictionWords(c.restrictions)}</dd>
        </dl>
      </Card>
      <Card title="Promotion codes" id="codes">
        <ErrorNotice error={codes.error} />
        <Table
          caption="Promotion codes"
          rows={codes.data?.data}
          rowKey={(p) => p.id}
          columns={[
            { header: 'Code', cell: (p) => <code class="promo-code">{p.code}</code> },
            { header: 'Redeemed', align: 'right', cell: (p) => redeemed(p.times_redeemed, p.max_redemptions) },
            { header: 'Expires', wide: true, cell: (p) => <span class="nowrap">{p.expires_at ? formatDateTime(p.expires_at) : '—'}</span> },
            { header: 'Restrictions', wide: true, cell: (p) => restrictionWords(p.restrictions) },
            { header: 'Status', cell: (p) => (p.active ? <Badge status="active">Active</Badge> : <Badge status="disabled">Inactive</Badge>) },
            {
              header: 'Actions',
              cell: (p) => (
                <Button size="sm" busy={action.busy === p.id} error={action.errorOf(p.id)} onClick={() => setActive(p, !p.active)} aria-label={`${p.active ? 'Deactivate' : 'Activate'} ${p.code}`}>
                  {p.active ? 'Deactivate' : 'Activate'}
                </Button>
              ),
            },
          ]}
          empty={<EmptyState title="No codes yet">Create a code below: buyers type it at checkout to get this coupon.</EmptyState>}
        />
      </Card>
      {c.valid && (
        <Card title="New promotion code" id="new-code">
          <NewCodeForm couponId={c.id} onCreated={codes.reload} />
        </Card>
      )}
    </>
  );
}

const EMPTY_CODE = { code: '', max: '', expires: '', firstTime: false };

function NewCodeForm({ couponId, onCreated }: { couponId: string; onCreated: () => void }) {
  const { fields, set, setFields } = useFields(EMPTY_CODE);
  const { code, max, expires, firstTime } = fields;
  const [created, setCreated] = useState<string | null>(null);
  const { busy, error, run } = useAction<'code'>();
  const save = async (event: Event) => {
    event.preventDefault();
    setCreated(null);
    const body = {
      coupon: couponId,
      ...(code.trim() ? { code: code.trim() } : {}),
      ...(max.trim() ? { max_redemptions: num(max) } : {}),
      ...(expires ? { expires_at: zonedTimeToUnix(expires, '23:59') } : {}),
      ...(firstTime ? { restrictions: { first_time_transaction: true } } : {}),
    };
    await run('code', async () => {
      const answer = await api.post<PromotionCode>('/promotion_codes', body);
      setCreated(answer.code);
      setFields(EMPTY_CODE);
      onCreated();
    });
  };
  return (
    <form onSubmit={save} noValidate aria-label="New promotion code">
      {created && <Notice tone="success">Code {created} created.</Notice>}
      <div class="form-row align-top">
        <Field label="Code" name="code" error={error} hint="Case does not matter; generated when left empty.">
          {(c) => <Input {...c} value={code} onValue={set('code')} placeholder="LAUNCH20" autoComplete="off" maxLength={64} />}
        </Field>
        <Field label="Redemptions (optional)" name="max_redemptions" error={error}>
          {(c) => <Input {...c} value={max} onValue={set('max')} inputMode="numeric" />}
        </Field>
        <Field label="Expires (optional)" name="expires_at" error={error}>
          {(c) => <Input {...c} type="date" value={expires} onValue={set('expires')} />}
        </Field>
      </div>
      <label class="check">
        <input type="checkbox" checked={firstTime} onChange={(e) => set('firstTime')((e.target as HTMLInputElement).checked)} />
        First purchase only
      </label>
      <OtherErrors error={error} shown={['code', 'max_redemptions', 'expires_at']} />
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={busy === 'code'}>
          Create code
        </Button>
      </div>
    </form>
  );
}
