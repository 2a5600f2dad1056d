import type { z } from 'zod';
import type { ManagedProductSchema, Plan as CatalogPlan } from '../../../modules/catalog/index.ts';
import { api, type Paged } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatDateTime, formatMoney } from '../format.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { useEffect, useState } from 'preact/hooks';
import { toMajor, toMinor } from './pageKit.tsx';
import { BenefitsCard } from './benefits/BenefitsCard.tsx';

type Charge = { amount: number; currency_code?: string };
/** A plan as a managed product lists it (without its creation number). */
export type Plan = Omit<CatalogPlan, 'number'>;
export type Product = Omit<z.infer<typeof ManagedProductSchema>, 'plans'> & { plans: Plan[] };

const INTERVALS: [string, string][] = [
  ['P1M', 'Monthly'],
  ['P1Y', 'Yearly'],
  ['P3M', 'Every 3 months'],
  ['P1W', 'Weekly'],
  ['P1D', 'Daily'],
];

const priceOf = (plan: Plan) => formatMoney(plan.charges.reduce((s, c) => s + c.amount, 0), plan.currency_code);

/** Products with their plans and prices, newest last (the service's order). */
export function CatalogPage() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1) || 1;
  const list = useApi<Paged<Product>>('/products', { page, per_page: 25 });
  const create = (
    <Link class="btn btn-primary" href="/dashboard/catalog/new">
      New product
    </Link>
  );
  return (
    <>
      <PageHeader title="Catalog" description="Products with their plans and prices. Publish a product to sell it through an offer." actions={create} />
      <ErrorNotice error={list.error} />
      {!list.data && list.loading && <Loading />}
      <PagedTable
        caption="Products"
        page={list.data}
        pages="Product pages"
        rowKey={(p) => p.id}
        busy={list.loading}
        columns={[
          {
            header: 'Product',
            cell: (p) => (
              <>
                <Link href={`/dashboard/catalog/${encodeURIComponent(p.id)}`}>{p.name ?? p.key}</Link>
                <div class="muted mono">{p.key}</div>
              </>
            ),
          },
          { header: 'Plans', cell: (p) => (p.plans.length ? p.plans.map((plan) => `${plan.display_name} · ${priceOf(plan)}`).join(', ') : <span class="muted">No plan yet</span>) },
          { header: 'Status', cell: (p) => <ProductStatus product={p} /> },
          { header: 'Version', cell: (p) => p.version_number, wide: true, align: 'right' },
        ]}
        empty={
          <EmptyState title="No products yet" action={create}>
            Create a product with a plan and its price; then make an offer of it to sell it.
          </EmptyState>
        }
      />
    </>
  );
}

function ProductStatus({ product }: { product: Pick<Product, 'status' | 'published_at'> }) {
  if (product.status === 'archived') return <Badge status="archived">Archived</Badge>;
  return product.published_at ? <Badge status="published">Published</Badge> : <Badge status="draft">Draft</Badge>;
}

/** `invoice_interval` is not edited here: kept when a file set one apart from the renew_interval (a yearly term billed monthly). */
type PlanForm = {
  name: string;
  display_name: string;
  type: 'recurring' | 'one_time';
  renew_interval: string;
  invoice_interval: string | null;
  currency_code: string;
  price: string;
  extra: Charge[];
  tax_behavior: 'inclusive' | 'exclusive' | 'unspecified';
};

const emptyPlan = (): PlanForm => ({ name: '', display_name: '', type: 'recurring', renew_interval: 'P1M', invoice_interval: null, currency_code: 'EUR', price: '', extra: [], tax_behavior: 'unspecified' });

const planForm = (p: Plan): PlanForm => ({
  name: p.name,
  display_name: p.display_name,
  type: p.type,
  renew_interval: p.renew_interval ?? 'P1M',
  invoice_interval: p.type === 'recurring' && p.invoice_interval !== p.renew_interval ? p.invoice_interval : null,
  currency_code: p.currency_code,
  price: p.charges[0] ? toMajor(p.charges[0].amount, p.currency_code) : '',
  extra: p.charges.slice(1),
  tax_behavior: p.tax_behavior ?? 'unspecified',
});

/** A plan of the form as the import file has it (one price; more charges a file gave are kept). */
const planBody = (p: PlanForm) => ({
  name: p.name.trim(),
  display_name: p.display_name.trim() || p.name.trim(),
  type: p.type,
  renew_interval: p.type === 'recurring' ? p.renew_interval : null,
  ...(p.type === 'recurring' && p.invoice_interval ? { invoice_interval: p.invoice_interval } : {}),
  currency_code: p.currency_code.trim().toUpperCase(),
  charges: [{ amount: toMinor(p.price, p.currency_code.trim().toUpperCase() || 'EUR') }, ...p.extra.map((c) => ({ amount: c.amount }))],
  tax_behavior: p.tax_behavior,
});

/** Create (`/dashboard/catalog/new`) or edit a product; publish, archive and restore. */
export function ProductPage({ params }: PageProps) {
  const isNew = params.id === undefined;
  const loaded = useApi<Product>(isNew ? null : `/products/${encodeURIComponent(params.id!)}`);
  const [product, setProduct] = useState<Product | null>(null);
  const { fields, set, setFields } = useFields({ key: '', name: '', description: '', plans: [emptyPlan()] });
  const { key, name, description, plans } = fields;
  const setPlans = set('plans');
  const { busy, errorOf, run } = useAction<'save' | 'publish' | 'archive' | 'restore'>();
  // The form's errors under the form; each header action's beside its button.
  const error = errorOf('save');
  const [saved, setSaved] = useState<string | null>(null);

  const fill = (p: Product) => {
    setProduct(p);
    setFields({ key: p.key, name: p.name ?? '', description: p.description ?? '', plans: p.plans.length ? p.plans.map(planForm) : [emptyPlan()] });
  };
  useEffect(() => {
    if (loaded.data) fill(loaded.data);
  }, [loaded.data]);

  const setPlan = (i: number, change: Partial<PlanForm>) => setPlans(plans.map((p, j) => (j === i ? { ...p, ...change } : p)));

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    const body = {
      name: name.trim() || null,
      description: description.trim() || null,
      plans: plans.filter((p) => p.name.trim() || p.price.trim()).map(planBody),
      ...(product
        ? { family: product.family, features: product.features, twins: product.twins, status: product.status, published: product.published_at !== null }
        : { family: null }),
    };
    await run('save', async () => {
      const answer = isNew ? await api.post<Product>('/products', { key: key.trim(), ...body }) : await api.put<Product>(`/products/${encodeURIComponent(product!.id)}`, body);
      fill(answer);
      setSaved(isNew ? 'Product created.' : 'Product saved.');
      if (isNew) navigate(`/dashboard/catalog/${encodeURIComponent(answer.id)}`, { replace: true });
    });
  };

  const lifecycle = async (action: 'publish' | 'archive' | 'restore') => {
    setSaved(null);
    await run(action, async () => {
      fill(await api.post<Product>(`/products/${encodeURIComponent(product!.id)}/${action}`));
      setSaved({ publish: 'Product published.', archive: 'Product archived.', restore: 'Product restored.' }[action]);
    });
  };

  const back = <Link href="/dashboard/catalog">← Catalog</Link>;
  if (!isNew && !product) {
    return (
      <>
        <PageHeader title="Product" back={back} />
        <ErrorNotice error={loaded.error} />
        {loaded.loading && <Loading />}
      </>
    );
  }
  const shown = ['key', 'name', 'description', 'plans', ...plans.flatMap((_, i) => ['name', 'display_name', 'type', 'renew_interval', 'currency_code', 'charges', 'charges.0.amount', 'tax_behavior'].map((f) => `plans.${i}.${f}`))];
  return (
    <>
      <PageHeader
        title={isNew ? 'New product' : (product!.name ?? product!.key)}
        back={back}
        description={product ? <ProductStatus product={product} /> : 'A product is what you sell; its plans carry the prices.'}
        actions={
          product && (
            <>
              {product.status === 'active' && !product.published_at && (
                <Button variant="primary" busy={busy === 'publish'} error={errorOf('publish')} onClick={() => lifecycle('publish')}>
                  Publish
                </Button>
              )}
              {product.status === 'active' ? (
                <Button variant="danger" busy={busy === 'archive'} error={errorOf('archive')} onClick={() => lifecycle('archive')}>
                  Archive
                </Button>
              ) : (
                <Button busy={busy === 'restore'} error={errorOf('restore')} onClick={() => lifecycle('restore')}>
                  Restore
                </Button>
              )}
            </>
          )
        }
      />
      {saved && <Notice tone="success">{saved}</Notice>}
      <form onSubmit={save} noValidate>
        <Card title="Details" id="details">
          <div class="form-row align-top">
            <Field label="Key" name="key" error={error} hint={isNew ? 'Your id of the product: letters, digits and . _ : -. It cannot change.' : 'It cannot change.'}>
              {(c) => <Input {...c} value={key} onValue={set('key')} readOnly={!isNew} required autoComplete="off" />}
            </Field>
            <Field label="Name" name="name" error={error}>
              {(c) => <Input {...c} value={name} onValue={set('name')} />}
            </Field>
          </div>
          <Field label="Description" name="description" error={error}>
            {(c) => <textarea {...c} class="input" rows={3} value={description} onInput={(e) => set('description')((e.target as HTMLTextAreaElement).value)} />}
          </Field>
        </Card>
        <Card
          title="Plans and prices"
          id="plans"
          actions={
            <Button size="sm" onClick={() => setPlans([...plans, emptyPlan()])}>
              Add plan
            </Button>
          }
        >
          {plans.map((plan, i) => (
            <fieldset class="plan-fieldset" key={i}>
              <legend>Plan {i + 1}</legend>
              <div class="form-row align-top">
                <Field label="Plan name" name={`plans.${i}.name`} error={error} hint="Offers name the plan by it.">
                  {(c) => <Input {...c} value={plan.name} onValue={(v) => setPlan(i, { name: v })} />}
                </Field>
                <Field label="Display name" name={`plans.${i}.display_name`} error={error} hint="What the buyer reads.">
                  {(c) => <Input {...c} value={plan.display_name} onValue={(v) => setPlan(i, { display_name: v })} />}
                </Field>
              </div>
              <div class="form-row align-top">
                <Field label="Billing" name={`plans.${i}.type`} error={error}>
                  {(c) => (
                    <Select {...c} value={plan.type} onValue={(v) => setPlan(i, { type: v as PlanForm['type'] })}>
                      <option value="recurring">Recurring</option>
                      <option value="one_time">One time</option>
                    </Select>
                  )}
                </Field>
                {plan.type === 'recurring' && (
                  <Field label="Renews" name={`plans.${i}.renew_interval`} error={error}>
                    {(c) => (
                      <Select {...c} value={plan.renew_interval} onValue={(v) => setPlan(i, { renew_interval: v })}>
                        {INTERVALS.map(([v, label]) => (
                          <option key={v} value={v}>
                            {label}
                          </option>
                        ))}
                        {!INTERVALS.some(([v]) => v === plan.renew_interval) && <option value={plan.renew_interval}>{plan.renew_interval}</option>}
                      </Select>
                    )}
                  </Field>
                )}
                <Field label="Currency" name={`plans.${i}.currency_code`} error={error}>
                  {(c) => <Input {...c} value={plan.currency_code} onValue={(v) => setPlan(i, { currency_code: v })} maxLength={3} autoComplete="off" />}
                </Field>
                <Field label="Price" name={`plans.${i}.charges.0.amount`} error={error} hint={plan.extra.length ? `Plus ${plan.extra.length} more charge(s) from an import.` : undefined}>
                  {(c) => <Input {...c} value={plan.price} onValue={(v) => setPlan(i, { price: v })} inputMode="decimal" placeholder="29.00" />}
                </Field>
                <Field label="Tax" name={`plans.${i}.tax_behavior`} error={error}>
                  {(c) => (
                    <Select {...c} value={plan.tax_behavior} onValue={(v) => setPlan(i, { tax_behavior: v as PlanForm['tax_behavior'] })}>
                      <option value="unspecified">Tax settings' default</option>
                      <option value="inclusive">Price includes tax</option>
                      <option value="exclusive">Tax added on top</option>
                    </Select>
                  )}
                </Field>
              </div>
              {plans.length > 1 && (
                <Button size="sm" variant="ghost" onClick={() => setPlans(plans.filter((_, j) => j !== i))}>
                  Remove plan {i + 1}
                </Button>
              )}
            </fieldset>
          ))}
        </Card>
        <OtherErrors error={error} shown={shown} />
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={busy === 'save'}>
            {isNew ? 'Create product' : 'Save changes'}
          </Button>
          {product?.published_at && <span class="muted">Published {formatDateTime(product.published_at)}</span>}
        </div>
      </form>
      {/* Outside the product's form: a benefit is saved on its own, not with the plans. */}
      {product && <BenefitsCard productId={product.id} />}
    </>
  );
}
