import { useEffect, useRef, useState } from 'preact/hooks';
import { api, type Paged } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { CopyButton } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { PageHeader } from '../components/PageHeader.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatDateTime } from '../format.ts';
import { Link, navigate, setQuery, useLocation } from '../router.tsx';
import type { PageProps } from '../routes.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { pageOfList, sampleFields, takenError } from './pageKit.tsx';

// Hand-kept until automation is a module whose index.ts exports its routes' schemas.
export type SendWebhook = { type: 'send_webhook'; url: string; method: string; payload: string; headers: Record<string, string>; signed?: boolean };
export type Enrol = { type: 'enrol_in_promo'; promo: string; email: string; reference: string };
export type Sequence = { id: number; key: string | null; name: string; status: 'active' | 'paused'; actions: Array<SendWebhook | Enrol>; created_at: number };
export type Sample = { method: string; payload: Record<string, unknown>; query: Record<string, unknown>; headers: Record<string, string>; received_at: number };
export type Trigger = { id: number; sequence_id: number; key: string | null; name: string; enabled: boolean; received_count: number; catch_url: string; sample?: Sample; created_at: number };
export type Step = { step: number; action: string; status: 'running' | 'succeeded' | 'failed'; attempts: number; result: Record<string, unknown> | null; started_at: number; completed_at: number | null };
export type Workflow = { id: number; trigger_id: number; sequence_id: number; status: 'running' | 'completed' | 'failed'; step_count: number; steps: Step[]; started_at: number; finished_at: number | null; test?: boolean };

export const ACTION_LABEL: Record<string, string> = { send_webhook: 'Send Webhook', enrol_in_promo: 'Enrol in promo' };
const cap = (s: string) => s[0]!.toUpperCase() + s.slice(1);

/** Sequences, their triggers' catch URLs and the workflows they ran. */
export function AutomationPage() {
  const { query } = useLocation();
  const sequences = useApi<{ data: Sequence[] }>('/sequences');
  const triggers = useApi<{ data: Trigger[] }>('/triggers', { trigger_type: 'webhook' });
  const wstatus = query.get('status') ?? '';
  const workflows = useApi<Paged<Workflow>>('/workflows', { page: Number(query.get('wpage') ?? 1) || 1, per_page: 25, status: wstatus });
  const { busy, error, run } = useAction();
  const names = new Map((sequences.data?.data ?? []).map((s) => [s.id, s.name]));
  const create = (
    <Link class="btn btn-primary" href="/dashboard/automation/sequences/new">
      New sequence
    </Link>
  );
  const act = (label: string, work: () => Promise<unknown>) =>
    run(label, async () => {
      await work();
      triggers.reload();
    });
  const seqPage = sequences.data ? pageOfList(sequences.data.data, Number(query.get('spage') ?? 1) || 1) : null;
  const trigPage = triggers.data ? pageOfList(triggers.data.data, Number(query.get('tpage') ?? 1) || 1) : null;
  return (
    <>
      <PageHeader title="Automation" description="When a webhook arrives at a trigger's catch URL, its sequence runs its actions, step by step." actions={create} />
      <ErrorNotice error={sequences.error ?? triggers.error ?? error} />
      <Card title="Sequences" id="sequences">
        {!seqPage && <Loading />}
        <PagedTable
          caption="Sequences"
          page={seqPage}
          pages="Sequence pages"
          pageKey="spage"
          rowKey={(s) => String(s.id)}
          columns={[
            { header: 'Sequence', cell: (s) => <Link href={`/dashboard/automation/sequences/${s.id}`}>{s.name}</Link> },
            { header: 'Actions', cell: (s) => (s.actions.length ? s.actions.map((a) => ACTION_LABEL[a.type]).join(' → ') : <span class="muted">None yet</span>) },
            { header: 'Status', cell: (s) => <Badge status={s.status}>{cap(s.status)}</Badge> },
          ]}
          empty={
            <EmptyState title="No sequences yet" action={create}>
              A sequence catches a webhook (from your form, your CRM, Zapier…) and sends it on, or enrols the person in a promo.
            </EmptyState>
          }
        />
      </Card>
      <Card title="Triggers" id="triggers">
        <PagedTable
          caption="Triggers"
          page={trigPage}
          pages="Trigger pages"
          pageKey="tpage"
          rowKey={(t) => String(t.id)}
          columns={[
            {
              header: 'Trigger',
              cell: (t) => (
                <>
                  <Link href={`/dashboard/automation/triggers/${t.id}`}>{t.name}</Link>
                  <div class="muted">{names.get(t.sequence_id) ?? ''}</div>
                </>
              ),
            },
            { header: 'Catch URL', cell: (t) => <CopyButton text={t.catch_url} label="Copy URL" /> },
            { header: 'Received', cell: (t) => t.received_count, align: 'right', wide: true },
            { header: 'Status', cell: (t) => <Badge status={t.enabled ? 'enabled' : 'disabled'}>{t.enabled ? 'Enabled' : 'Disabled'}</Badge> },
            {
              header: <span class="sr-only">Actions</span>,
              cell: (t) => (
                <Button size="sm" busy={busy === `t${t.id}`} onClick={() => act(`t${t.id}`, () => api.post(`/triggers/${t.id}/${t.enabled ? 'disable' : 'enable'}`))} aria-label={`${t.enabled ? 'Disable' : 'Enable'} ${t.name}`}>
                  {t.enabled ? 'Disable' : 'Enable'}
                </Button>
              ),
              wide: true,
            },
          ]}
          empty={<EmptyState title="No triggers yet">Add a trigger to a sequence: it gets a catch URL to point your webhook at.</EmptyState>}
        />
      </Card>
      <Card
        title="Workflows"
        id="workflows"
        actions={
          <div class="inline-select">
            <label for="workflow-status">Status</label>
            <select id="workflow-status" class="input" value={wstatus} onChange={(e) => setQuery({ status: (e.target as HTMLSelectElement).value, wpage: null }, { replace: true })}>
              <option value="">All</option>
              <option value="running">Running</option>
              <option value="completed">Completed</option>
              <option value="failed">Failed</option>
            </select>
          </div>
        }
      >
        <ErrorNotice error={workflows.error} />
        <PagedTable
          caption="Workflows"
          page={workflows.data}
          pages="Workflow pages"
          pageKey="wpage"
          rowKey={(w) => String(w.id)}
          busy={workflows.loading}
          columns={[
            { header: 'Run', cell: (w) => <Link href={`/dashboard/automation/workflows/${w.id}`}>#{w.id}{w.test ? ' (test)' : ''}</Link> },
            { header: 'Sequence', cell: (w) => names.get(w.sequence_id) ?? `#${w.sequence_id}`, wide: true },
            { header: 'Steps', cell: (w) => `${w.steps.filter((s) => s.status === 'succeeded').length}/${w.step_count}`, align: 'right' },
            { header: 'Status', cell: (w) => <Badge status={w.status}>{cap(w.status)}</Badge> },
            { header: 'Started', cell: (w) => formatDateTime(w.started_at), wide: true },
          ]}
          empty={<EmptyState title={wstatus ? `No ${wstatus} workflows` : 'No workflows yet'}>A workflow starts each time a trigger catches a webhook, or when you test-run a trigger on its sample.</EmptyState>}
        />
      </Card>
    </>
  );
}

type HeaderRow = { name: string; value: string };
type ActionForm =
  /** `from`: the step's position in the sequence as saved, whose secret it keeps when none is typed. */
  | { type: 'send_webhook'; url: string; method: string; payload: string; headers: HeaderRow[]; secret: string; signed: boolean; from: number | null; generated: boolean }
  | { type: 'enrol_in_promo'; promo: string; email: string; reference: string };
type TriggerForm = { key: string; name: string; enabled: boolean };

const actionForm = (a: SendWebhook | Enrol, i: number): ActionForm =>
  a.type === 'send_webhook'
    ? { type: 'send_webhook', url: a.url, method: a.method, payload: a.payload, headers: Object.entries(a.headers).map(([name, value]) => ({ name, value })), secret: '', signed: a.signed ?? false, from: i, generated: false }
    : { ...a };
const newAction = (type: ActionForm['type']): ActionForm =>
  type === 'send_webhook'
    ? { type, url: 'https://', method: 'POST', payload: '{\n  "email": "{{webhook_payload.email}}"\n}', headers: [], secret: '', signed: false, from: null, generated: false }
    : { type, promo: '', email: '{{webhook_payload.email}}', reference: '{{webhook_payload.ref}}' };

/** A Standard Webhooks secret: `whsec_` and the base64 of 32 random bytes. */
function newSigningSecret(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  return `whsec_${btoa(String.fromCharCode(...bytes))}`;
}

/** A typed or generated secret replaces the step's; none typed keeps the one it had (secrets are write-only). */
const signingSecret = (a: Extract<ActionForm, { type: 'send_webhook' }>) => (a.secret ? a.secret : a.signed && a.from !== null ? { from_step: a.from } : null);
const actionBody = (a: ActionForm) =>
  a.type === 'send_webhook'
    ? {
        type: a.type,
        url: a.url.trim(),
        method: a.method,
        payload: a.method === 'GET' ? '' : a.payload,
        headers: Object.fromEntries(a.headers.filter((h) => h.name.trim()).map((h) => [h.name.trim(), h.value])),
        signing_secret: signingSecret(a),
      }
    : { type: a.type, promo: a.promo, email: a.email, reference: a.reference };

/** Create (`…/sequences/new`) or edit a sequence: its actions, in order, and its triggers. */
export function SequencePage({ params }: PageProps) {
  const isNew = params.id === undefined;
  const sequences = useApi<{ data: Sequence[] }>(isNew ? null : '/sequences');
  const triggers = useApi<{ data: Trigger[] }>(isNew ? null : '/triggers');
  const promos = useApi<{ data: Array<{ slug: string; name: string }> }>('/promos');
  const [sequence, setSequence] = useState<Sequence | null>(null);
  const { fields: form, set, setFields } = useFields({ key: '', name: '', status: 'active' as 'active' | 'paused' });
  const { key, name, status } = form;
  const [actions, setActions] = useState<ActionForm[]>([newAction('send_webhook')]);
  const [trigs, setTrigs] = useState<TriggerForm[]>([{ key: 'incoming', name: 'Incoming webhook', enabled: true }]);
  const { busy, error, run } = useAction<'save'>();
  const [saved, setSaved] = useState<string | null>(null);
  const payloadRefs = useRef<Array<HTMLTextAreaElement | null>>([]);

  const mine = (triggers.data?.data ?? []).filter((t) => sequence && t.sequence_id === sequence.id);
  useEffect(() => {
    const found = sequences.data?.data.find((s) => String(s.id) === params.id);
    if (!found || !triggers.data) return;
    setSequence(found);
    setFields({ key: found.key ?? '', name: found.name, status: found.status });
    setActions(found.actions.map((a, i) => actionForm(a, i)));
    setTrigs(triggers.data.data.filter((t) => t.sequence_id === found.id).map((t) => ({ key: t.key ?? '', name: t.name, enabled: t.enabled })));
  }, [sequences.data, triggers.data]);

  const fields = sampleFields(mine.find((t) => t.sample)?.sample?.payload);
  const setAction = (i: number, change: Partial<ActionForm>) => setActions(actions.map((a, j) => (j === i ? ({ ...a, ...change } as ActionForm) : a)));
  const insert = (i: number, text: string) => {
    const a = actions[i]!;
    if (a.type !== 'send_webhook') return;
    const el = payloadRefs.current[i];
    const at = el ? el.selectionStart : a.payload.length;
    const end = el ? el.selectionEnd : at;
    setAction(i, { payload: a.payload.slice(0, at) + text + a.payload.slice(end) });
    requestAnimationFrame(() => {
      el?.focus();
      el?.setSelectionRange(at + text.length, at + text.length);
    });
  };

  const save = async (event: Event) => {
    event.preventDefault();
    setSaved(null);
    await run('save', async () => {
      if (isNew && (await api.get<{ data: Sequence[] }>('/sequences')).data.some((s) => s.key === key.trim())) throw takenError('key', 'A sequence');
      const answer = await api.post<{ sequence_id: number }>('/sequences', { key: key.trim(), name: name.trim(), status, actions: actions.map(actionBody), triggers: trigs.map((t) => ({ ...t, key: t.key.trim(), name: t.name.trim() })) });
      setSaved(isNew ? 'Sequence created. Point a webhook at a trigger\'s catch URL to start it.' : 'Sequence saved.');
      if (isNew) navigate(`/dashboard/automation/sequences/${answer.sequence_id}`, { replace: true });
      else {
        sequences.reload();
        triggers.reload();
      }
    });
  };

  const back = <Link href="/dashboard/automation">← Automation</Link>;
  if (!isNew && !sequence) {
    return (
      <>
        <PageHeader title="Sequence" back={back} />
        <ErrorNotice error={sequences.error ?? triggers.error} />
        {sequences.data && !sequences.data.data.some((s) => String(s.id) === params.id) ? <EmptyState title="No such sequence">Go back to Automation to see your sequences.</EmptyState> : <Loading />}
      </>
    );
  }
  const shown = [
    'key',
    'name',
    'status',
    ...actions.flatMap((a, i) => [
      ...['url', 'method', 'payload', 'headers', 'signing_secret', 'promo', 'email', 'reference'].map((f) => `actions.${i}.${f}`),
      ...(a.type === 'send_webhook' ? a.headers.map((h) => `actions.${i}.headers.${h.name.trim()}`) : []),
    ]), ...trigs.flatMap((_, i) => [`triggers.${i}.key`, `triggers.${i}.name`])];
  return (
    <>
      <PageHeader title={isNew ? 'New sequence' : sequence!.name} back={back} description={sequence ? <Badge status={sequence.status}>{cap(sequence.status)}</Badge> : 'Actions run in order on each webhook a trigger catches.'} />
      {saved && <Notice tone="success">{saved}</Notice>}
      {mine.length > 0 && (
        <Card title="Catch URLs" id="catch">
          <ul class="plain-list">
            {mine.map((t) => (
              <li key={t.id} class="catch-row">
                <span class="catch-name">{t.name}</span>
                <code class="catch-url">{t.catch_url}</code>
                <CopyButton text={t.catch_url} label="Copy URL" />
                <Link class="btn btn-secondary btn-sm" href={`/dashboard/automation/triggers/${t.id}`}>
                  {t.sample ? 'Samples and test run' : 'Wait for a webhook'}
                </Link>
              </li>
            ))}
          </ul>
        </Card>
      )}
      <form onSubmit={save} noValidate>
        <Card title="Sequence" id="sequence">
          <div class="form-row align-top">
            <Field label="Name" name="name" error={error}>
              {(c) => <Input {...c} value={name} onValue={set('name')} />}
            </Field>
            <Field label="Key" name="key" error={error} hint={isNew ? 'Your id of the sequence; it cannot change.' : 'It cannot change.'}>
              {(c) => <Input {...c} value={key} onValue={set('key')} readOnly={!isNew} autoComplete="off" />}
            </Field>
            <Field label="Status" name="status" error={error}>
              {(c) => (
                <Select {...c} value={status} onValue={(v) => set('status')(v as 'active' | 'paused')}>
                  <option value="active">Active</option>
                  <option value="paused">Paused</option>
                </Select>
              )}
            </Field>
          </div>
        </Card>
        <Card title="Actions" id="actions">
          {actions.length === 0 && <p class="muted">No action: add one below.</p>}
          <ol class="blocks">
            {actions.map((a, i) => (
              <li key={i} class="block">
                <div class="block-head">
                  <span class="block-type">
                    Step {i + 1}: {ACTION_LABEL[a.type]}
                  </span>
                  <Button size="sm" variant="ghost" onClick={() => setActions(actions.filter((_, j) => j !== i))} aria-label={`Remove step ${i + 1}`}>
                    Remove
                  </Button>
                </div>
                {a.type === 'send_webhook' ? (
                  <>
                    <div class="form-row align-top">
                      <Field label="Method" name={`actions.${i}.method`} error={error}>
                        {(c) => (
                          <Select {...c} value={a.method} onValue={(v) => setAction(i, { method: v })}>
                            {['POST', 'PUT', 'PATCH', 'GET', 'DELETE'].map((m) => (
                              <option key={m}>{m}</option>
                            ))}
                          </Select>
                        )}
                      </Field>
                      <div class="field-wide">
                        <Field label="URL" name={`actions.${i}.url`} error={error}>
                          {(c) => <Input {...c} type="url" value={a.url} onValue={(v) => setAction(i, { url: v })} autoComplete="off" />}
                        </Field>
                      </div>
                    </div>
                    {a.method !== 'GET' && (
                      <Field label="Payload template (JSON)" name={`actions.${i}.payload`} error={error} hint="Values from the webhook that started the run go in as {{webhook_payload.field}}.">
                        {(c) => (
                          <textarea
                            {...c}
                            ref={(el) => {
                              payloadRefs.current[i] = el;
                            }}
                            class="input mono"
                            rows={5}
                            value={a.payload}
                            onInput={(e) => setAction(i, { payload: (e.target as HTMLTextAreaElement).value })}
                          />
                        )}
                      </Field>
                    )}
                    {a.method !== 'GET' && (
                      <div class="insertions" role="group" aria-label={`Insert a field of the sample into step ${i + 1}'s payload`}>
                        <span class="muted">Insert from the sample:</span>
                        {fields.length ? (
                          fields.map((f) => (
                            <button type="button" key={f} class="chip" onClick={() => insert(i, f)}>
                              {f.slice(2, -2)}
                            </button>
                          ))
                        ) : (
                          <span class="muted">{isNew ? 'save the sequence, send a webhook to its catch URL and choose it as the sample: its fields appear here.' : 'choose a sample on a trigger first.'}</span>
                        )}
                      </div>
                    )}
                    <fieldset class="headers">
                      <legend>Headers</legend>
                      {a.headers.map((h, k) => (
                        <div class="form-row" key={k}>
                          <Field label={`Header ${k + 1} name`} name={`actions.${i}.headers.${h.name}.name`}>
                            {(c) => <Input {...c} value={h.name} onValue={(v) => setAction(i, { headers: a.headers.map((x, j) => (j === k ? { ...x, name: v } : x)) })} autoComplete="off" />}
                          </Field>
                          <Field label={`Header ${k + 1} value`} name={`actions.${i}.headers.${h.name.trim()}`} error={error}>
                            {(c) => <Input {...c} value={h.value} onValue={(v) => setAction(i, { headers: a.headers.map((x, j) => (j === k ? { ...x, value: v } : x)) })} autoComplete="off" />}
                          </Field>
                          <Button size="sm" variant="ghost" onClick={() => setAction(i, { headers: a.headers.filter((_, j) => j !== k) })} aria-label={`Remove header ${k + 1}`}>
                            Remove
                          </Button>
                        </div>
                      ))}
                      <Button size="sm" onClick={() => setAction(i, { headers: [...a.headers, { name: '', value: '' }] })}>
                        Add header
                      </Button>
                      {error?.field(`actions.${i}.headers`) && <p class="field-error">{error.field(`actions.${i}.headers`)}</p>}
                    </fieldset>
                    <Field
                      label="Signing secret (optional)"
                      name={`actions.${i}.signing_secret`}
                      error={error}
                      hint={
                        a.generated
                          ? 'Copy this secret to the receiver now: it is never shown again once the sequence is saved. Receivers verify calls with it (Standard Webhooks).'
                          : a.signed
                            ? 'This step signs its calls. The secret is never shown: leave this empty to keep it, or type or generate one to replace it.'
                            : 'Each call is signed with it (Standard Webhooks): whsec_ and the base64 of 24 to 64 random bytes. Generate one, or paste your own.'
                      }
                    >
                      {(c) =>
                        a.generated ? (
                          <Input {...c} type="text" readOnly value={a.secret} onValue={() => undefined} spellcheck={false} />
                        ) : (
                          <Input {...c} type="password" value={a.secret} onValue={(v) => setAction(i, { secret: v })} autoComplete="new-password" />
                        )
                      }
                    </Field>
                    <div class="form-row">
                      <Button size="sm" onClick={() => setAction(i, { secret: newSigningSecret(), generated: true })} aria-label={`Generate secret for step ${i + 1}`}>
                        Generate secret
                      </Button>
                      {a.generated && <CopyButton text={a.secret} label="Copy secret" />}
                      {(a.signed || a.secret) && (
                        <Button size="sm" variant="ghost" onClick={() => setAction(i, { secret: '', signed: false, generated: false })} aria-label={`Stop signing step ${i + 1}`}>
                          Stop signing
                        </Button>
                      )}
                    </div>
                  </>
                ) : (
                  <div class="form-row align-top">
                    <Field label="Promo" name={`actions.${i}.promo`} error={error}>
                      {(c) => (
                        <Select {...c} value={a.promo} onValue={(v) => setAction(i, { promo: v })}>
                          <option value="">Choose a promo…</option>
                          {(promos.data?.data ?? []).map((p) => (
                            <option key={p.slug} value={p.slug}>
                              {p.name}
                            </option>
                          ))}
                        </Select>
                      )}
                    </Field>
                    <Field label="Email template" name={`actions.${i}.email`} error={error}>
                      {(c) => <Input {...c} value={a.email} onValue={(v) => setAction(i, { email: v })} list={`fields-${i}`} />}
                    </Field>
                    <Field label="Reference template" name={`actions.${i}.reference`} error={error}>
                      {(c) => <Input {...c} value={a.reference} onValue={(v) => setAction(i, { reference: v })} list={`fields-${i}`} />}
                    </Field>
                    <datalist id={`fields-${i}`}>
                      {fields.map((f) => (
                        <option key={f} value={f} />
                      ))}
                    </datalist>
                  </div>
                )}
              </li>
            ))}
          </ol>
          <div class="form-row">
            <Button size="sm" onClick={() => setActions([...actions, newAction('send_webhook')])}>
              Add Send Webhook
            </Button>
            <Button size="sm" onClick={() => setActions([...actions, newAction('enrol_in_promo')])}>
              Add Enrol in promo
            </Button>
          </div>
        </Card>
        <Card title="Triggers" id="trigger-form">
          {trigs.map((t, i) => (
            <div class="form-row" key={i}>
              <Field label={`Trigger ${i + 1} name`} name={`triggers.${i}.name`} error={error}>
                {(c) => <Input {...c} value={t.name} onValue={(v) => setTrigs(trigs.map((x, j) => (j === i ? { ...x, name: v } : x)))} />}
              </Field>
              <Field label={`Trigger ${i + 1} key`} name={`triggers.${i}.key`} error={error}>
                {(c) => <Input {...c} value={t.key} onValue={(v) => setTrigs(trigs.map((x, j) => (j === i ? { ...x, key: v } : x)))} autoComplete="off" readOnly={mine.some((m) => m.key === t.key)} />}
              </Field>
              <label class="check">
                <input type="checkbox" checked={t.enabled} onChange={(e) => setTrigs(trigs.map((x, j) => (j === i ? { ...x, enabled: (e.target as HTMLInputElement).checked } : x)))} />
                Enabled
              </label>
            </div>
          ))}
          <Button size="sm" onClick={() => setTrigs([...trigs, { key: `hook-${trigs.length + 1}`, name: `Webhook ${trigs.length + 1}`, enabled: true }])}>
            Add trigger
          </Button>
        </Card>
        <OtherErrors error={error} shown={shown} />
        <div class="form-actions">
          <Button type="submit" variant="primary" busy={busy === 'save'}>
            {isNew ? 'Create sequence' : 'Save changes'}
          </Button>
        </div>
      </form>
    </>
  );
}
