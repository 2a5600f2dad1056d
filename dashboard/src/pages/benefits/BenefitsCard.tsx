import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type ApiError, upload } from '../../api.ts';
import { Badge } from '../../components/Badge.tsx';
import { Button } from '../../components/Button.tsx';
import { Card } from '../../components/Card.tsx';
import { ConfirmButton } from '../../components/ConfirmButton.tsx';
import { Field, Input, OtherErrors, Select } from '../../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../../components/Notice.tsx';
import { Link } from '../../router.tsx';
import { useAction } from '../../useAction.ts';
import { useApi } from '../../useApi.ts';
import { asApiError } from '../pageKit.tsx';
// Pure, and bundled: sizes read as the buyer's thank-you page and receipt write them.
import { formatBytes } from '../../../../platform/domain/byteSize.ts';
import { BENEFIT_TYPE_WORDS, type Benefit, type FileObject, isFileBenefit, isLicenseBenefit, licenseTerms } from './benefitKit.ts';

type Editing = { type: Benefit['type']; benefit: Benefit | null } | null;

/**
 * The product page's Benefits (files, a license key) a buyer gets on payment: add, edit, delete
 * (confirmed: a deleted benefit's grants are revoked).
 */
export function BenefitsCard({ productId }: { productId: string }) {
  const path = `/products/${encodeURIComponent(productId)}/benefits`;
  const list = useApi<{ data: Benefit[] }>(path);
  const benefits = list.data?.data ?? [];
  const files = useFiles(benefits.flatMap((b) => (isFileBenefit(b) ? b.properties.files : [])));
  const [editing, setEditing] = useState<Editing>(null);
  const [saved, setSaved] = useState<string | null>(null);
  const action = useAction<string>();

  const open = (next: Editing) => {
    setSaved(null);
    setEditing(next);
  };
  const done = (message: string) => {
    setEditing(null);
    setSaved(message);
    list.reload();
  };

  return (
    <Card
      title="Benefits"
      id="benefits"
      actions={
        !editing && (
          <>
            <Button size="sm" onClick={() => open({ type: 'file', benefit: null })}>
              Add files
            </Button>
            <Button size="sm" onClick={() => open({ type: 'license_key', benefit: null })}>
              Add license key
            </Button>
          </>
        )
      }
    >
      <p class="muted card-intro">What a buyer gets once they pay: files to download, a license key. A full refund takes them back.</p>
      {saved && <Notice tone="success">{saved}</Notice>}
      <ErrorNotice error={list.error} />
      <ErrorNotice error={action.error} />
      {!list.data && list.loading && <Loading />}
      {list.data && benefits.length === 0 && !editing && <p class="muted">No benefits yet: buyers get a receipt only.</p>}
      {benefits.length > 0 && (
        <ul class="benefit-list" aria-label="Benefits of this product">
          {benefits.map((b) => (
            <li key={b.id} class="benefit-item">
              <div class="benefit-main">
                <div class="benefit-head">
                  <Badge status={b.type === 'file' ? 'open' : 'published'}>{BENEFIT_TYPE_WORDS[b.type]}</Badge>
                  <strong>{b.description}</strong>
                </div>
                {isFileBenefit(b) && (
                  <ul class="benefit-files">
                    {b.properties.files.map((id) => {
                      const f = files.get(id);
                      return (
                        <li key={id}>
                          {f ? (
                            <>
                              {f.filename} <span class="muted">· {formatBytes(f.size)}</span>
                            </>
                          ) : (
                            <code>{id}</code>
                          )}
                        </li>
                      );
                    })}
                  </ul>
                )}
                {isLicenseBenefit(b) && (
                  <p class="muted benefit-terms">
                    {licenseTerms(b.properties)} ·{' '}
                    <Link href={`/dashboard/license-keys?benefit=${encodeURIComponent(b.id)}`} aria-label={`Keys issued for ${b.description}`}>
                      Keys issued
                    </Link>
                  </p>
                )}
              </div>
              {editing?.benefit?.id !== b.id && (
                <div class="benefit-actions">
                  <Button size="sm" onClick={() => open({ type: b.type, benefit: b })} aria-label={`Edit ${b.description}`}>
                    Edit
                  </Button>
                  <ConfirmButton
                    label="Delete"
                    what={b.description}
                    onConfirm={async () => {
                      setSaved(null);
                      const ok = await action.run(b.id, async () => {
                        await api.delete(`/benefits/${encodeURIComponent(b.id)}`);
                        return true;
                      });
                      if (ok) done(`Benefit “${b.description}” deleted; the buyers who had it lose it.`);
                    }}
                  />
                </div>
              )}
            </li>
          ))}
        </ul>
      )}
      {editing && (
        <BenefitForm
          key={editing.benefit?.id ?? `new-${editing.type}`}
          productId={productId}
          type={editing.type}
          benefit={editing.benefit}
          files={files}
          onCancel={() => setEditing(null)}
          onSaved={(b, created) => done(created ? `Benefit “${b.description}” added.` : `Benefit “${b.description}” saved.`)}
        />
      )}
    </Card>
  );
}

/** The file objects of these ids, asked once each (a benefit lists a few). */
function useFiles(ids: string[]): Map<string, FileObject> {
  const [known, setKnown] = useState(() => new Map<string, FileObject>());
  const asked = useRef(new Set<string>());
  const wanted = ids.filter((id) => !asked.current.has(id));
  useEffect(() => {
    for (const id of wanted) {
      asked.current.add(id);
      api.get<FileObject>(`/files/${encodeURIComponent(id)}`).then(
        (f) => setKnown((m) => new Map(m).set(id, f)),
        () => undefined,
      );
    }
  }, [wanted.join(',')]);
  return known;
}

/**
 * One file of the form: uploading (with its progress), uploaded, or failed. `fresh`: uploaded by
 * this form, so nothing else uses it until the benefit is saved.
 */
type Upload = { key: string; name: string; size: number; sent: number; file: FileObject | null; error: ApiError | null; fresh: boolean; abort?: AbortController };

/** A file uploaded here and then dropped (removed, or the form cancelled) is deleted: nothing would ever deliver it. */
const discard = (u: Upload) => {
  u.abort?.abort();
  if (u.fresh && u.file) void api.delete(`/files/${encodeURIComponent(u.file.id)}`).catch(() => undefined);
};

const numberOrRaw = (v: string): number | string | null => (v.trim() === '' ? null : /^\d+$/.test(v.trim()) ? Number(v.trim()) : v.trim());

let uploadCounter = 0;

function BenefitForm({
  productId,
  type,
  benefit,
  files,
  onCancel,
  onSaved,
}: {
  productId: string;
  type: Benefit['type'];
  benefit: Benefit | null;
  files: Map<string, FileObject>;
  onCancel: () => void;
  onSaved: (b: Benefit, created: boolean) => void;
}) {
  const license = benefit && isLicenseBenefit(benefit) ? benefit.properties : null;
  const [description, setDescription] = useState(benefit?.description ?? '');
  const [uploads, setUploads] = useState<Upload[]>(() =>
    benefit && isFileBenefit(benefit)
      ? benefit.properties.files.map((id) => {
          const f = files.get(id) ?? null;
          return { key: id, name: f?.filename ?? id, size: f?.size ?? 0, sent: f?.size ?? 0, file: f ?? ({ id } as FileObject), error: null, fresh: false };
        })
      : [],
  );
  const [prefix, setPrefix] = useState(license?.prefix ?? '');
  const [limit, setLimit] = useState(license?.activation_limit != null ? String(license.activation_limit) : '');
  const [expires, setExpires] = useState<'never' | 'days'>(license?.expires_after_days != null ? 'days' : 'never');
  const [days, setDays] = useState(license?.expires_after_days != null ? String(license.expires_after_days) : '');
  const [boundTo, setBoundTo] = useState<'subscription' | 'perpetual'>(license?.bound_to ?? 'perpetual');
  const { busy, error, run } = useAction<'save'>();
  const queue = useRef(Promise.resolve());
  // Aborts what is still uploading when the form closes.
  const live = useRef(uploads);
  live.current = uploads;
  useEffect(() => () => live.current.forEach((u) => u.abort?.abort()), []);

  const patch = (key: string, change: Partial<Upload>) => setUploads((list) => list.map((u) => (u.key === key ? { ...u, ...change } : u)));

  const add = (chosen: FileList | null) => {
    for (const file of Array.from(chosen ?? [])) {
      const key = `upload-${++uploadCounter}`;
      const abort = new AbortController();
      setUploads((list) => [...list, { key, name: file.name, size: file.size, sent: 0, file: null, error: null, fresh: true, abort }]);
      // One at a time: each gets the whole connection, and they finish in the order chosen.
      queue.current = queue.current.then(async () => {
        if (abort.signal.aborted) return;
        try {
          const answer = await upload<FileObject>('/files', file, { fields: { purpose: 'benefit' }, signal: abort.signal, onProgress: (sent) => patch(key, { sent }) });
          // Removed while its answer was on the way: dropped like any other.
          if (abort.signal.aborted) return discard({ key, name: file.name, size: file.size, sent: file.size, file: answer, error: null, fresh: true });
          patch(key, { file: answer, sent: file.size, abort: undefined });
        } catch (e) {
          if ((e as Error).name !== 'AbortError') patch(key, { error: asApiError(e), abort: undefined });
        }
      });
    }
  };
  const remove = (u: Upload) => {
    discard(u);
    setUploads((list) => list.filter((x) => x.key !== u.key));
  };
  const cancel = () => {
    uploads.forEach(discard);
    onCancel();
  };

  const uploading = uploads.some((u) => !u.file && !u.error);
  const save = async (event: Event) => {
    event.preventDefault();
    const properties =
      type === 'file'
        ? { files: uploads.filter((u) => u.file).map((u) => u.file!.id) }
        : { prefix: prefix.trim() || null, activation_limit: numberOrRaw(limit), expires_after_days: expires === 'never' ? null : (numberOrRaw(days) ?? ''), bound_to: boundTo };
    await run('save', async () => {
      const answer = benefit
        ? await api.patch<Benefit>(`/benefits/${encodeURIComponent(benefit.id)}`, { description: description.trim(), properties })
        : await api.post<Benefit>(`/products/${encodeURIComponent(productId)}/benefits`, { type, description: description.trim(), properties });
      onSaved(answer, !benefit);
    });
  };

  const title = `${benefit ? 'Edit' : 'New'} ${type === 'file' ? 'file' : 'license key'} benefit`;
  const shown = ['type', 'description', 'properties.files', 'properties.prefix', 'properties.activation_limit', 'properties.expires_after_days', 'properties.bound_to'];
  return (
    <form class="benefit-form" onSubmit={save} noValidate aria-label={title}>
      <h3>{title}</h3>
      <Field label="Description" name="description" error={error} hint={type === 'file' ? 'What the buyer reads above the downloads (“The zine, PDF”).' : 'What the buyer reads beside the key (“Pro license”).'}>
        {(c) => <Input {...c} value={description} onValue={setDescription} maxLength={200} />}
      </Field>
      {type === 'file' ? (
        <fieldset class="checks">
          <legend>Files</legend>
          {uploads.length > 0 && (
            <ul class="upload-list" aria-label="Files of this benefit">
              {uploads.map((u) => (
                <li key={u.key} class="upload-item">
                  <span class="upload-name">
                    {u.name}
                    {u.size > 0 && <span class="muted"> · {formatBytes(u.size)}</span>}
                  </span>
                  {!u.file && !u.error && (
                    <progress max={u.size || 1} value={u.sent} aria-label={`Uploading ${u.name}`}>
                      {Math.round((100 * u.sent) / (u.size || 1))}%
                    </progress>
                  )}
                  {u.file && <span class="upload-done">Uploaded</span>}
                  {u.error && (
                    <span class="field-error" role="alert">
                      {u.error.message}
                    </span>
                  )}
                  <Button size="sm" variant="ghost" onClick={() => remove(u)} aria-label={`${u.file || u.error ? 'Remove' : 'Cancel'} ${u.name}`}>
                    {u.file || u.error ? 'Remove' : 'Cancel'}
                  </Button>
                </li>
              ))}
            </ul>
          )}
          <Field label="Upload files" name="properties.files" error={error} hint="Up to 512 MiB each; a buyer downloads them through links that last 15 minutes.">
            {(c) => (
              <input
                {...c}
                class="input"
                type="file"
                multiple
                onChange={(e) => {
                  const input = e.target as HTMLInputElement;
                  add(input.files);
                  input.value = '';
                }}
              />
            )}
          </Field>
        </fieldset>
      ) : (
        <>
          <div class="form-row align-top">
            <Field label="Prefix (optional)" name="properties.prefix" error={error} hint="Shown before the key, e.g. ACME.">
              {(c) => <Input {...c} value={prefix} onValue={setPrefix} autoComplete="off" maxLength={20} />}
            </Field>
            <Field label="Activation limit" name="properties.activation_limit" error={error} hint="Devices at once; empty for no limit.">
              {(c) => <Input {...c} value={limit} onValue={setLimit} inputMode="numeric" placeholder="Unlimited" />}
            </Field>
          </div>
          <div class="form-row align-top">
            <Field label="Expiry" name="expiry">
              {(c) => (
                <Select {...c} value={expires} onValue={(v) => setExpires(v as 'never' | 'days')}>
                  <option value="never">Never expires</option>
                  <option value="days">Expires after a number of days</option>
                </Select>
              )}
            </Field>
            {expires === 'days' && (
              <Field label="Days after the purchase" name="properties.expires_after_days" error={error}>
                {(c) => <Input {...c} value={days} onValue={setDays} inputMode="numeric" placeholder="365" />}
              </Field>
            )}
            <Field label="Key lasts" name="properties.bound_to" error={error} hint="A refund disables either.">
              {(c) => (
                <Select {...c} value={boundTo} onValue={(v) => setBoundTo(v as 'subscription' | 'perpetual')}>
                  <option value="subscription">While the subscription is paid</option>
                  <option value="perpetual">For good (perpetual)</option>
                </Select>
              )}
            </Field>
          </div>
        </>
      )}
      <OtherErrors error={error} shown={shown} />
      <div class="form-actions">
        <Button type="submit" variant="primary" busy={busy === 'save'} disabled={uploading}>
          {benefit ? 'Save benefit' : 'Add benefit'}
        </Button>
        <Button variant="ghost" onClick={cancel}>
          Cancel
        </Button>
        {uploading && <span class="muted">Waiting for the uploads to finish…</span>}
      </div>
    </form>
  );
}
