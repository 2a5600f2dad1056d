import type { z } from 'zod';
import { useState } from 'preact/hooks';
import type { TaxRateSchema, TaxSettingsSchema } from '../../../modules/tax/index.ts';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Field, Input, OtherErrors, Select } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { SettingsSection } from '../components/Tabs.tsx';
import { Table } from '../components/Table.tsx';
import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

type TaxSettings = z.infer<typeof TaxSettingsSchema>;
type TaxRate = z.infer<typeof TaxRateSchema>;

/** By country, then the country-wide rate before a region's and a postal prefix's, active before archived. */
const byPlace = (a: TaxRate, b: TaxRate) =>
  a.country.localeCompare(b.country) ||
  (a.state ?? '').localeCompare(b.state ?? '') ||
  (a.postal_code_prefix ?? '').localeCompare(b.postal_code_prefix ?? '') ||
  Number(b.active) - Number(a.active) ||
  b.created - a.created;

const place = (r: TaxRate) => [r.country, r.state, r.postal_code_prefix ? `postal codes ${r.postal_code_prefix}…` : null].filter(Boolean).join(' · ');

/** Settings → Tax: whether tax is collected, the default behaviour of prices, and the rates (docs/tax.md). */
export function TaxPage() {
  const session = useSession();
  const owner = session?.current_organization?.role === 'owner';
  const settings = useApi<TaxSettings>('/tax/settings');
  const rates = useApi<{ data: TaxRate[] }>('/tax_rates');
  const [answer, setAnswer] = useState<TaxSettings | null>(null);
  const [loaded, setLoaded] = useState<number | null>(null);
  const { busy, error, run } = useAction<'settings' | 'starter' | string>();
  const current = answer ?? settings.data;

  const saveSettings = (change: Partial<Pick<TaxSettings, 'enabled' | 'default_tax_behavior'>>) =>
    run('settings', async () => setAnswer(await api.post<TaxSettings>('/tax/settings', change)));
  const loadStarter = () =>
    run('starter', async () => {
      const result = await api.post<{ as_of: string; created: TaxRate[] }>('/tax_rates/starter');
      setLoaded(result.created.length);
      rates.reload();
    });
  const archive = (rate: TaxRate) =>
    run(rate.id, async () => {
      await api.post<TaxRate>(`/tax_rates/${rate.id}`, { active: false });
      rates.reload();
    });

  return (
    <SettingsSection current="/dashboard/settings/tax">
      <ErrorNotice error={settings.error ?? rates.error ?? error} />
      {!current && !settings.error && <Loading />}
      {current && (
        <Card title="Tax" id="tax" actions={<Badge status={current.enabled ? 'active' : 'draft'}>{current.enabled ? 'Collecting' : 'Not collecting'}</Badge>}>
          <p>
            When tax is collected, checkout asks buyers for their country (and postal code where a rate needs it) and, optionally, a business name and VAT number; invoices show the tax per
            line. EU businesses in another EU country than yours with a well-formed VAT number are reverse-charged.
          </p>
          <dl class="details">
            <dt>Your country</dt>
            <dd>{current.origin.country ?? <span class="muted">not set</span>}</dd>
            <dt>Your VAT number</dt>
            <dd>{current.origin.vat_number ?? <span class="muted">not set</span>}</dd>
          </dl>
          {!current.origin.country && (
            <Notice tone="warning">
              Set your address in <Link href="/dashboard/settings">General</Link>: without your country, no sale can be reverse-charged.
            </Notice>
          )}
          {owner ? (
            <div class="form-row align-top">
              <Field label="Collect tax" name="enabled" error={error}>
                {(c) => (
                  <Select {...c} value={current.enabled ? 'on' : 'off'} disabled={busy === 'settings'} onValue={(v) => void saveSettings({ enabled: v === 'on' })}>
                    <option value="off">No: prices are charged as they are</option>
                    <option value="on">Yes: compute tax at checkout and on invoices</option>
                  </Select>
                )}
              </Field>
              <Field label="Prices without a tax behaviour" name="default_tax_behavior" error={error} hint="A plan can say otherwise (Catalog → plan → Tax).">
                {(c) => (
                  <Select {...c} value={current.default_tax_behavior} disabled={busy === 'settings'} onValue={(v) => void saveSettings({ default_tax_behavior: v as TaxSettings['default_tax_behavior'] })}>
                    <option value="inclusive">Include the tax (EU consumer prices)</option>
                    <option value="exclusive">Get the tax added on top</option>
                  </Select>
                )}
              </Field>
            </div>
          ) : (
            <p class="muted">
              {current.enabled ? 'Tax is collected' : 'Tax is not collected'}; prices without a tax behaviour {current.default_tax_behavior === 'inclusive' ? 'include the tax' : 'get it added'}. Only
              owners change these.
            </p>
          )}
        </Card>
      )}
      <Card
        title="Tax rates"
        id="tax-rates"
        actions={
          owner && (
            <Button size="sm" busy={busy === 'starter'} onClick={() => void loadStarter()}>
              Load EU standard rates
            </Button>
          )
        }
      >
        {current && (
          <Notice tone="warning">
            The EU standard rates are a starting point as of {current.starter_rates_as_of}: rates change, reduced rates are not included, and you remain responsible for what you charge. Check
            each against its country's tax authority. Loading adds a rate only for countries without a country-wide one.
          </Notice>
        )}
        {loaded !== null && <Notice tone="success">{loaded === 0 ? 'Every EU country already has a rate: nothing added.' : `${loaded} rates added.`}</Notice>}
        {!rates.data && !rates.error && <Loading />}
        {rates.data && (
          <Table
            caption="Tax rates"
            rows={[...rates.data.data].sort(byPlace)}
            rowKey={(r) => r.id}
            empty={<p class="muted">No rates yet: add one below, or load the EU standard rates.</p>}
            columns={[
              { header: 'Place', cell: (r) => place(r) },
              { header: 'Name', cell: (r) => r.display_name },
              { header: 'Rate', cell: (r) => `${r.percentage}%`, align: 'right' },
              { header: 'Description', cell: (r) => r.description ?? '', wide: true },
              { header: 'Status', cell: (r) => <Badge status={r.active ? 'active' : 'archived'}>{r.active ? 'Active' : 'Archived'}</Badge> },
              { header: '', cell: (r) => (owner && r.active ? <ConfirmButton label="Archive" what={`${r.display_name} ${place(r)}`} onConfirm={() => archive(r)} /> : null) },
            ]}
          />
        )}
        {owner && <NewRateForm onDone={() => rates.reload()} />}
      </Card>
    </SettingsSection>
  );
}

function NewRateForm({ onDone }: { onDone: () => void }) {
  const empty = { display_name: 'VAT', percentage: '', country: '', state: '', postal_code_prefix: '', description: '' };
  const [form, setForm] = useState(empty);
  const { busy, error, run } = useAction<'create'>();
  const [created, setCreated] = useState<TaxRate | null>(null);
  const set = (change: Partial<typeof empty>) => setForm({ ...form, ...change });
  const submit = (e: Event) => {
    e.preventDefault();
    setCreated(null);
    void run('create', async () => {
      const rate = await api.post<TaxRate>('/tax_rates', {
        display_name: form.display_name,
        percentage: form.percentage.trim() === '' ? null : Number(form.percentage.replace(',', '.')),
        country: form.country,
        state: form.state.trim() || null,
        postal_code_prefix: form.postal_code_prefix.trim() || null,
        description: form.description.trim() || null,
      });
      setCreated(rate);
      setForm(empty);
      onDone();
    });
  };
  return (
    <form onSubmit={submit} noValidate class="stack-form" aria-label="Add a tax rate">
      <h3>Add a rate</h3>
      <p class="muted">A rate's percentage never changes: to change one, archive it and add the new one. The most specific active rate applies: postal code, then region, then country.</p>
      <div class="form-row align-top">
        <Field label="Country" name="country" error={error} hint="Two letters, such as DE.">
          {(c) => <Input {...c} value={form.country} onValue={(v) => set({ country: v })} maxLength={2} autoComplete="off" required />}
        </Field>
        <Field label="Rate (%)" name="percentage" error={error}>
          {(c) => <Input {...c} value={form.percentage} onValue={(v) => set({ percentage: v })} inputMode="decimal" placeholder="19" required />}
        </Field>
        <Field label="Name" name="display_name" error={error} hint="As invoices show it: VAT, MwSt, TVA.">
          {(c) => <Input {...c} value={form.display_name} onValue={(v) => set({ display_name: v })} maxLength={50} required />}
        </Field>
      </div>
      <div class="form-row align-top">
        <Field label="Region (optional)" name="state" error={error} hint="Its code, such as CN for the Canaries.">
          {(c) => <Input {...c} value={form.state} onValue={(v) => set({ state: v })} maxLength={3} autoComplete="off" />}
        </Field>
        <Field label="Postal codes starting with (optional)" name="postal_code_prefix" error={error}>
          {(c) => <Input {...c} value={form.postal_code_prefix} onValue={(v) => set({ postal_code_prefix: v })} maxLength={10} autoComplete="off" />}
        </Field>
        <Field label="Description (optional)" name="description" error={error}>
          {(c) => <Input {...c} value={form.description} onValue={(v) => set({ description: v })} maxLength={500} />}
        </Field>
      </div>
      <OtherErrors error={error} shown={['country', 'percentage', 'display_name', 'state', 'postal_code_prefix', 'description']} />
      {created && <Notice tone="success">{`${created.display_name} ${created.percentage}% for ${place(created)} added.`}</Notice>}
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={busy === 'create'}>
          Add rate
        </Button>
      </div>
    </form>
  );
}
