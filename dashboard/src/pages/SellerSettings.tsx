import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { OrganizationSchema } from '../../../modules/identity/index.ts';
import type { SmtpSettingsSchema } from '../../../modules/receipts/index.ts';
import { api } from '../api.ts';
import { Button, OwnerSave } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { Field, Input, OtherErrors, useFields } from '../components/Field.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

type Organization = z.infer<typeof OrganizationSchema>;
type SmtpSettings = z.infer<typeof SmtpSettingsSchema>;

const LOGO_MAX = 256 * 1024;
/** The customer portal's colour while the seller sets none. */
const DEFAULT_BRAND = '#1d4ed8';
const ADDRESS_FIELDS = ['line1', 'line2', 'postal_code', 'city', 'region', 'country'] as const;
type AddressForm = Record<(typeof ADDRESS_FIELDS)[number], string>;
const emptyAddress: AddressForm = { line1: '', line2: '', postal_code: '', city: '', region: '', country: '' };

const readAsDataUrl = (file: File) =>
  new Promise<string>((resolve, reject) => {
    const reader = new FileReader();
    reader.onload = () => resolve(String(reader.result));
    reader.onerror = () => reject(reader.error ?? new Error('The file could not be read.'));
    reader.readAsDataURL(file);
  });

/** What buyers see of the seller on the checkout, receipts, invoices and emails (address, VAT number, logo), and the portal's colour. */
export function SellerIdentity({ owner }: { owner: boolean }) {
  const org = useApi<Organization>('/organization');
  const [address, setAddress] = useState<AddressForm>(emptyAddress);
  const [vat, setVat] = useState('');
  /** `#rrggbb`, or '' for the portal's default. */
  const [brand, setBrand] = useState('');
  const [logo, setLogo] = useState<string | null | undefined>(undefined);
  const [fileProblem, setFileProblem] = useState<string | null>(null);
  const { busy, error, run } = useAction<'save'>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (!org.data) return;
    const a = org.data.address;
    setAddress(a ? { line1: a.line1, line2: a.line2 ?? '', postal_code: a.postal_code ?? '', city: a.city, region: a.region ?? '', country: a.country } : emptyAddress);
    setVat(org.data.vat_number ?? '');
    setBrand(org.data.brand_color ?? '');
  }, [org.data]);

  const pick = async (e: Event) => {
    const file = (e.target as HTMLInputElement).files?.[0];
    setFileProblem(null);
    if (!file) return;
    if (!['image/png', 'image/jpeg'].includes(file.type)) return setFileProblem('Choose a PNG or JPEG image (SVG is not accepted).');
    if (file.size > LOGO_MAX) return setFileProblem('The logo must be at most 256 KB.');
    setLogo(await readAsDataUrl(file));
  };

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const blank = ADDRESS_FIELDS.every((f) => address[f].trim() === '');
    await run('save', async () => {
      const body = { address: blank ? null : address, vat_number: vat, brand_color: brand.trim() === '' ? null : brand.trim(), ...(logo !== undefined ? { logo } : {}) };
      await api.patch<Organization>('/organization', body);
      setLogo(undefined);
      org.reload();
      setSaved(true);
    });
  };
  const set = (field: keyof AddressForm) => (v: string) => setAddress({ ...address, [field]: v });
  const addressField = (field: keyof AddressForm, label: string, required = false) => (
    <Field label={label} name={`address.${field}`} error={error}>
      {(c) => <Input {...c} required={required} disabled={!owner} value={address[field]} onValue={set(field)} />}
    </Field>
  );

  return (
    <Card title="Business details" id="business">
      <p class="muted">Buyers see these on the checkout page, receipts, invoices, credit notes and every email: the organization's name above, with this address, VAT number and logo. The customer portal takes the brand colour.</p>
      <ErrorNotice error={org.error} />
      {org.data && (
        <form onSubmit={save} noValidate>
          <div class="form-row">
            {addressField('line1', 'Address', true)}
            {addressField('line2', 'Address line 2')}
          </div>
          <div class="form-row">
            {addressField('postal_code', 'Postal code')}
            {addressField('city', 'City', true)}
            {addressField('region', 'Region')}
            {addressField('country', 'Country (two letters)', true)}
          </div>
          <div class="form-row">
            <Field label="VAT number" name="vat_number" error={error} hint="Printed under the address, such as NL123456789B01.">
              {(c) => <Input {...c} maxLength={32} disabled={!owner} value={vat} onValue={setVat} />}
            </Field>
            <Field label="Logo" name="logo" error={error} hint="PNG or JPEG, at most 256 KB; shown about 48 pixels high.">
              {(c) => <input {...c} class="input" type="file" accept="image/png,image/jpeg" disabled={!owner} onChange={pick} />}
            </Field>
            <Field label="Brand colour" name="brand_color" error={error} hint="The customer portal's buttons, links and header, as #rrggbb; empty: the default blue.">
              {(c) => (
                <div class="color-input">
                  <input
                    type="color"
                    value={/^#[0-9a-fA-F]{6}$/.test(brand) ? brand.toLowerCase() : DEFAULT_BRAND}
                    disabled={!owner}
                    onInput={(e) => setBrand((e.target as HTMLInputElement).value)}
                    aria-label="Pick the brand colour"
                  />
                  <Input {...c} value={brand} onValue={setBrand} maxLength={7} autoComplete="off" placeholder={DEFAULT_BRAND} disabled={!owner} />
                </div>
              )}
            </Field>
          </div>
          {fileProblem && <Notice tone="error">{fileProblem}</Notice>}
          {org.data.logo_url && logo === undefined && (
            <p class="seller-logo">
              <img src={org.data.logo_url} alt="Your logo" height={48} />{' '}
              {owner && (
                <Button type="button" onClick={() => setLogo(null)}>
                  Remove logo
                </Button>
              )}
            </p>
          )}
          {logo === null && <p class="muted">The logo is removed when you save.</p>}
          <OtherErrors error={error} shown={['vat_number', 'brand_color', 'logo', ...ADDRESS_FIELDS.map((f) => `address.${f}`)]} />
          <OwnerSave owner={owner} saved={saved} busy={busy === 'save'} label="Save business details" refusal="Only owners change the business details." />
        </form>
      )}
    </Card>
  );
}

/** The SMTP server buyer emails leave through (owners), and a test email to oneself. */
export function EmailSettings() {
  const current = useApi<SmtpSettings>('/organization/smtp');
  const { fields, set, setFields } = useFields({ host: '', port: '587', username: '', password: '', from: '' });
  const { host, port, username, password, from } = fields;
  const { busy, error, run } = useAction<'save' | 'test' | 'remove'>();
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null);
  useEffect(() => {
    if (!current.data) return;
    const { host, port, username, from } = current.data;
    setFields({ host: host ?? '', port: String(port ?? 587), username: username ?? '', from: from ?? '', password: '' });
  }, [current.data]);

  const save = async (e: Event) => {
    e.preventDefault();
    setResult(null);
    await run('save', async () => {
      // An empty password field keeps the stored one.
      await api.put('/organization/smtp', { host, port: Number(port), username, from, ...(password ? { password } : {}) });
      current.reload();
      setResult({ tone: 'success', text: 'Saved. Emails waiting in the outbox go out now.' });
    });
  };
  const test = () =>
    run('test', async () => {
      setResult(null);
      try {
        const sent = await api.post<{ to: string; response: string }>('/organization/smtp/test', {});
        setResult({ tone: 'success', text: `Sent to ${sent.to}. The server answered: ${sent.response}` });
      } catch (e) {
        setResult({ tone: 'error', text: e instanceof Error ? e.message : String(e) });
      }
    });

  const data = current.data;
  return (
    <Card title="Email" id="email">
      <p class="muted">
        Receipts, refunds and every other email to your buyers go through this SMTP server, from its address.
        {data && !data.configured && (data.operator_default ? ' Until you set one, they go through the service’s default server.' : ' None is set: buyer emails wait in the outbox until you set one.')}
      </p>
      <ErrorNotice error={current.error} />
      {data && (
        <form onSubmit={save} noValidate>
          <div class="form-row">
            <Field label="SMTP host" name="host" error={error}>
              {(c) => <Input {...c} required placeholder="smtp.example.com" value={host} onValue={set('host')} />}
            </Field>
            <Field label="Port" name="port" error={error} hint="587 (STARTTLS) or 465 (TLS).">
              {(c) => <Input {...c} inputMode="numeric" value={port} onValue={set('port')} />}
            </Field>
          </div>
          <div class="form-row">
            <Field label="Username" name="username" error={error}>
              {(c) => <Input {...c} autoComplete="off" value={username} onValue={set('username')} />}
            </Field>
            <Field label="Password" name="password" error={error} hint={data.password_set ? 'Stored (sealed); leave empty to keep it.' : 'Stored sealed; never shown again.'}>
              {(c) => <Input {...c} type="password" autoComplete="new-password" value={password} onValue={set('password')} />}
            </Field>
          </div>
          <Field label="From" name="from" error={error} hint="Such as Your Shop <shop@example.com>.">
            {(c) => <Input {...c} required value={from} onValue={set('from')} />}
          </Field>
          <OtherErrors error={error} shown={['host', 'port', 'username', 'password', 'from']} />
          {result && <Notice tone={result.tone}>{result.text}</Notice>}
          <div class="form-actions">
            <Button type="submit" variant="primary" busy={busy === 'save'}>
              Save email settings
            </Button>
            <Button type="button" busy={busy === 'test'} onClick={() => void test()} disabled={!data.configured && !data.operator_default}>
              Send a test email
            </Button>
            {data.configured && (
              <ConfirmButton
                label="Remove"
                what="the SMTP settings"
                onConfirm={() =>
                  run('remove', async () => {
                    await api.delete('/organization/smtp');
                    current.reload();
                  })
                }
              />
            )}
          </div>
        </form>
      )}
    </Card>
  );
}
