import type { z } from 'zod';
import type { WebhookDeliverySchema, WebhookEndpointSchema } from '../../../modules/webhooks/index.ts';
import { useState } from 'preact/hooks';
import { api, type ApiError } from '../api.ts';
import type { PageProps } from '../routes.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyField } from '../components/CopyButton.tsx';
import { DevelopersSection } from '../components/Tabs.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading, Notice } from '../components/Notice.tsx';
import { PagedTable, Pagination } from '../components/Table.tsx';
import { formatDateTime, formatDateTimeSeconds } from '../format.ts';
import { Link, navigate, setQuery, useLocation } from '../router.tsx';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { WEBHOOK_EVENTS } from '../webhookEventTypes.ts';
import { pageOfList } from './pageKit.tsx';

/** The management routes of docs/event-webhooks.md (owners only; never a secret but once). */
export type WebhookEndpoint = z.infer<typeof WebhookEndpointSchema>;
type Delivery = z.infer<typeof WebhookDeliverySchema>;

const BASE = '/dashboard/developers/webhooks';
const endpointStatus = (e: WebhookEndpoint) => (e.enabled ? 'enabled' : e.disabled_reason === 'failing' ? 'failed' : 'disabled');
const endpointStatusLabel = (e: WebhookEndpoint) => (e.enabled ? 'Enabled' : e.disabled_reason === 'failing' ? 'Disabled: failing' : 'Disabled');

const SECTION = {
  current: BASE,
  description: "API keys for your server's calls, webhook endpoints that hear of your sales, and the log of everything that happened.",
  ownersOnly: 'Only owners of the organization manage webhook endpoints, since each has a signing secret.',
};

/** Developers → Webhook endpoints: the list, paged. */
export function WebhooksPage() {
  return (
    <DevelopersSection {...SECTION}>
      <EndpointList />
    </DevelopersSection>
  );
}

function EndpointList() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1);
  const list = useApi<{ data: WebhookEndpoint[] }>('/webhook-endpoints');
  const add = (
    <Link href={`${BASE}/new`} class="btn btn-primary">
      Add an endpoint
    </Link>
  );
  const paged = list.data ? pageOfList(list.data.data, page) : null;
  return (
    <Card title="Webhook endpoints" id="endpoints" actions={list.data?.data.length ? add : undefined}>
      <p class="muted">
        Each endpoint gets a signed POST for every event it subscribes to, retried until it answers 2xx. See <code>docs/event-webhooks.md</code> to verify the signature.
      </p>
      <ErrorNotice error={list.error} />
      {!paged && !list.error && <Loading />}
      <PagedTable
        caption="Webhook endpoints"
        page={paged}
        rowKey={(e) => e.id}
        columns={[
          {
            header: 'URL',
            cell: (e) => (
              <>
                <Link href={`${BASE}/${encodeURIComponent(e.id)}`} class="break">
                  {e.url}
                </Link>
                <span class="row-sub mono">{e.id}</span>
              </>
            ),
          },
          { header: 'Events', wide: true, cell: (e) => (e.event_types.length === WEBHOOK_EVENTS.length ? 'All' : `${e.event_types.length} of ${WEBHOOK_EVENTS.length}`) },
          { header: 'Status', cell: (e) => <Badge status={endpointStatus(e)}>{endpointStatusLabel(e)}</Badge> },
          { header: 'Created', wide: true, cell: (e) => <span class="nowrap">{formatDateTime(e.created_at)}</span> },
        ]}
        empty={
          <EmptyState title="No webhook endpoints yet" action={add}>
            Add your server's URL to hear of each sale, refund or failed workflow as it happens.
          </EmptyState>
        }
      />
    </Card>
  );
}

/** The event types as checkboxes, with "all" and "none". */
function EventChecks({ value, onValue, error }: { value: string[]; onValue: (v: string[]) => void; error: ApiError | null }) {
  const message = error?.field('event_types') ?? Object.entries(error?.fields ?? {}).find(([k]) => k.startsWith('event_types.'))?.[1][0];
  return (
    <fieldset class="checks" aria-describedby={message ? 'event-types-error' : undefined} aria-invalid={message ? true : undefined}>
      <legend>Events to send</legend>
      <div class="form-actions compact">
        <Button size="sm" variant="ghost" onClick={() => onValue(WEBHOOK_EVENTS.map((e) => e.type))}>
          Select all
        </Button>
        <Button size="sm" variant="ghost" onClick={() => onValue([])}>
          Select none
        </Button>
      </div>
      <div class="event-checks">
        {WEBHOOK_EVENTS.map((e) => (
          <label class="check" key={e.type}>
            <input type="checkbox" checked={value.includes(e.type)} onChange={(ev) => onValue((ev.target as HTMLInputElement).checked ? [...value, e.type] : value.filter((t) => t !== e.type))} />
            <span>
              <code>{e.type}</code> <span class="muted">{e.description}</span>
            </span>
          </label>
        ))}
      </div>
      {message && (
        <p class="field-error" id="event-types-error">
          {message}
        </p>
      )}
    </fieldset>
  );
}

/** The signing secret of a new or rotated endpoint: shown this once. */
function SecretOnce({ secret, onDone, rotated }: { secret: string; onDone: () => void; rotated?: number | undefined }) {
  return (
    <div class="notice notice-success secret-once" role="status">
      <p>
        <strong>Copy the signing secret now:</strong> it is shown only this once. Your receiver verifies each request with it (a Standard Webhooks library takes it as it is).
      </p>
      <CopyField text={secret} label="The endpoint's signing secret" />
      {rotated !== undefined && <p class="muted small">The previous secret keeps signing beside it until {formatDateTime(rotated)}: deploy the new one before then.</p>}
      <Button size="sm" onClick={onDone}>
        I have copied it
      </Button>
    </div>
  );
}

/** /dashboard/developers/webhooks/new */
export function NewWebhookPage() {
  const { fields: { url, types }, set } = useFields({ url: '', types: ['checkout.session.completed', 'invoice.paid'] });
  const { busy, error, run } = useAction<'create'>();
  const [created, setCreated] = useState<(WebhookEndpoint & { secret: string }) | null>(null);
  const submit = async (e: Event) => {
    e.preventDefault();
    await run('create', async () => setCreated(await api.post<WebhookEndpoint & { secret: string }>('/webhook-endpoints', { url: url.trim(), event_types: types })));
  };
  return (
    <DevelopersSection {...SECTION}>
      <p>
        <Link href={BASE}>← Webhook endpoints</Link>
      </p>
      {created ? (
        <Card title="Endpoint added" id="created">
          <p class="break">
            <code>{created.url}</code> now receives {created.event_types.length} event {created.event_types.length === 1 ? 'type' : 'types'}.
          </p>
          <SecretOnce secret={created.secret} onDone={() => navigate(`${BASE}/${encodeURIComponent(created.id)}`)} />
        </Card>
      ) : (
        <Card title="Add a webhook endpoint" id="new-endpoint">
          <form onSubmit={submit} noValidate class="stack-form wide-form">
            <Field label="Endpoint URL" name="url" error={error} hint="Your server's HTTPS address; a private or loopback address is refused when sent to.">
              {(c) => <Input {...c} type="url" required maxLength={2048} placeholder="https://shop.example.com/hooks/commerce" value={url} onValue={set('url')} />}
            </Field>
            <EventChecks value={types} onValue={set('types')} error={error} />
            <OtherErrors error={error} shown={['url', 'event_types', ...WEBHOOK_EVENTS.map((_, i) => `event_types.${i}`)]} />
            <div class="form-actions">
              <Button type="submit" variant="primary" busy={busy === 'create'}>
                Add endpoint
              </Button>
              <Link href={BASE} class="btn btn-ghost">
                Cancel
              </Link>
            </div>
          </form>
        </Card>
      )}
    </DevelopersSection>
  );
}

const OVERLAPS: { label: string; seconds: number }[] = [
  { label: 'At once (no overlap)', seconds: 0 },
  { label: '1 hour', seconds: 3_600 },
  { label: '24 hours', seconds: 86_400 },
  { label: '7 days', seconds: 7 * 86_400 },
];

/** /dashboard/developers/webhooks/:id: settings, secret rotation, deliveries. */
export function WebhookPage({ params }: PageProps) {
  const id = params.id!;
  const endpoint = useApi<WebhookEndpoint>(`/webhook-endpoints/${encodeURIComponent(id)}`);
  return (
    <DevelopersSection {...SECTION}>
      <p>
        <Link href={BASE}>← Webhook endpoints</Link>
      </p>
      {endpoint.error?.status === 404 ? (
        <EmptyState title="No such endpoint in this organization" action={<Link href={BASE}>Back to the endpoints</Link>}>
          It may have been deleted, or belong to another organization.
        </EmptyState>
      ) : (
        <ErrorNotice error={endpoint.error} />
      )}
      {!endpoint.data && !endpoint.error && <Loading />}
      {endpoint.data && (
        <>
          <EndpointSettings key={endpoint.data.updated_at} endpoint={endpoint.data} onChange={endpoint.reload} />
          <Deliveries endpointId={id} />
        </>
      )}
    </DevelopersSection>
  );
}

function EndpointSettings({ endpoint, onChange }: { endpoint: WebhookEndpoint; onChange: () => void }) {
  const path = `/webhook-endpoints/${encodeURIComponent(endpoint.id)}`;
  const { fields: { url, types }, set } = useFields({ url: endpoint.url, types: endpoint.event_types as string[] });
  const { busy, error, run } = useAction<'save'>();
  // Enable, disable, delete and rotate: their error shows at the top of the card, not under the form.
  const actions = useAction<'enable' | 'disable' | 'delete' | 'rotate'>();
  const [overlap, setOverlap] = useState('24 hours');
  const [rotated, setRotated] = useState<{ secret: string; previous_secret_expires_at: number } | null>(null);
  const [saved, setSaved] = useState(false);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    await run('save', async () => {
      await api.patch(path, { url: url.trim(), event_types: types });
      setSaved(true);
      onChange();
    });
  };

  return (
    <>
      <Card
        title="Endpoint"
        id="endpoint"
        actions={<Badge status={endpointStatus(endpoint)}>{endpointStatusLabel(endpoint)}</Badge>}
      >
        <ErrorNotice error={actions.error} />
        {endpoint.disabled_reason === 'failing' && (
          <Notice tone="warning">The service disabled this endpoint after five days of failed deliveries. Fix the receiver, enable it again, then resend what failed.</Notice>
        )}
        <dl class="details">
          <dt>Id</dt>
          <dd>
            <code>{endpoint.id}</code>
          </dd>
          <dt>Created</dt>
          <dd>{formatDateTime(endpoint.created_at)}</dd>
        </dl>
        <div class="form-actions">
          {endpoint.enabled ? (
            <Button onClick={() => actions.run('disable', async () => (await api.patch(path, { enabled: false }), onChange()))}>Disable</Button>
          ) : (
            <Button variant="primary" onClick={() => actions.run('enable', async () => (await api.patch(path, { enabled: true }), onChange()))}>
              Enable
            </Button>
          )}
          <ConfirmButton
            label="Delete"
            what={endpoint.url}
            onConfirm={() =>
              actions.run('delete', async () => {
                await api.delete(path);
                navigate(BASE);
              })
            }
          />
        </div>
        <form onSubmit={save} noValidate class="stack-form wide-form" aria-label="Endpoint settings">
          <Field label="Endpoint URL" name="url" error={error}>
            {(c) => <Input {...c} type="url" required maxLength={2048} value={url} onValue={set('url')} />}
          </Field>
          <EventChecks value={types} onValue={set('types')} error={error} />
          <OtherErrors error={error} shown={['url', 'event_types', ...WEBHOOK_EVENTS.map((_, i) => `event_types.${i}`)]} />
          {saved && <Notice tone="success">Saved.</Notice>}
          <div class="form-actions">
            <Button type="submit" variant="primary" busy={busy === 'save'}>
              Save
            </Button>
          </div>
        </form>
      </Card>
      <Card title="Signing secret" id="secret">
        {rotated ? (
          <SecretOnce secret={rotated.secret} rotated={rotated.previous_secret_expires_at} onDone={() => setRotated(null)} />
        ) : (
          <p class="muted">The secret is shown only when it is made. Rotate it to get a new one; the previous one can keep signing beside it while you deploy the new one.</p>
        )}
        <div class="form-row secret-row">
          <Field label="Keep the previous secret for" name="overlap_seconds" error={actions.error}>
            {(c) => (
              <Select {...c} value={overlap} onValue={setOverlap}>
                {OVERLAPS.map((o) => (
                  <option key={o.label}>{o.label}</option>
                ))}
              </Select>
            )}
          </Field>
          <div class="field field-button">
            <ConfirmButton
              label="Rotate secret"
              what={endpoint.url}
              confirm="Yes, make a new secret"
              onConfirm={() =>
                actions.run('rotate', async () => {
                  const seconds = OVERLAPS.find((o) => o.label === overlap)?.seconds ?? 86_400;
                  setRotated(await api.post<{ secret: string; previous_secret_expires_at: number }>(`${path}/rotate-secret`, { overlap_seconds: seconds }));
                })
              }
            />
          </div>
        </div>
      </Card>
    </>
  );
}

const STATUSES = ['', 'pending', 'succeeded', 'failed'] as const;

function Deliveries({ endpointId }: { endpointId: string }) {
  const { query } = useLocation();
  const status = query.get('status') ?? '';
  const page = Number(query.get('page') ?? 1);
  // The route answers the newest 250 at most; the page shows them 25 at a time.
  const list = useApi<{ data: Delivery[] }>(`/webhook-endpoints/${encodeURIComponent(endpointId)}/deliveries`, { status, limit: 250 });
  const { error, run } = useAction();
  const [resent, setResent] = useState<string | null>(null);
  const paged = list.data ? pageOfList(list.data.data, page) : null;
  const resend = async (d: Delivery) => {
    setResent(null);
    await run(d.id, async () => {
      await api.post(`/webhook-deliveries/${encodeURIComponent(d.id)}/resend`);
      setResent(d.id);
      list.reload();
    });
  };
  return (
    <Card
      title="Deliveries"
      id="deliveries"
      actions={
        <Button size="sm" onClick={list.reload}>
          Refresh
        </Button>
      }
    >
      <div class="form-row">
        <Field label="Status" name="status">
          {(c) => (
            <Select {...c} value={status} onValue={(v) => setQuery({ status: v || null, page: null }, { replace: true })}>
              {STATUSES.map((s) => (
                <option key={s} value={s}>
                  {s ? s.charAt(0).toUpperCase() + s.slice(1) : 'All'}
                </option>
              ))}
            </Select>
          )}
        </Field>
      </div>
      <ErrorNotice error={list.error ?? error} />
      {resent && <Notice tone="success">Sent again: the new attempt shows here in a moment.</Notice>}
      {!paged && !list.error && <Loading />}
      {paged && (
        <>
          {paged.data.length === 0 ? (
            <EmptyState title={status ? `No ${status} deliveries` : 'No deliveries yet'}>
              {status ? 'Choose another status to see the rest.' : 'A delivery appears here when an event this endpoint subscribes to happens: make a test sale to see one.'}
            </EmptyState>
          ) : (
            <ol class="delivery-list" aria-label="Deliveries, newest first">
              {paged.data.map((d) => (
                <li key={d.id} class="delivery">
                  <div class="delivery-head">
                    <code>{d.event_type}</code>
                    <Badge status={d.status === 'succeeded' ? 'completed' : d.status === 'pending' ? 'open' : 'failed'}>{d.status}</Badge>
                    <span class="muted">
                      {formatDateTime(d.created_at)} · {d.attempts} {d.attempts === 1 ? 'attempt' : 'attempts'}
                      {d.next_attempt_at ? ` · next at ${formatDateTime(d.next_attempt_at)}` : ''}
                    </span>
                    <Button size="sm" onClick={() => resend(d)} aria-label={`Resend ${d.event_type} of ${formatDateTimeSeconds(d.created_at)}`}>
                      Resend
                    </Button>
                  </div>
                  <details>
                    <summary>
                      Attempts <span class="sr-only">of {d.event_type}</span>
                    </summary>
                    <p class="muted small">
                      Event <code>{d.event_id}</code> (the <code>webhook-id</code> header)
                    </p>
                    {d.attempt_log.length === 0 ? (
                      <p class="muted">Not sent yet.</p>
                    ) : (
                      <ol class="attempts">
                        {d.attempt_log.map((a) => (
                          <li key={a.attempt}>
                            <strong>
                              #{a.attempt}
                              {a.manual ? ' (resent)' : ''}
                            </strong>{' '}
                            {formatDateTimeSeconds(a.attempted_at)} · {a.success ? 'succeeded' : 'failed'} · {a.status_code ? `HTTP ${a.status_code}` : (a.error ?? 'no answer')} · {a.duration_ms} ms
                            {a.response_excerpt && <pre class="code">{a.response_excerpt}</pre>}
                          </li>
                        ))}
                      </ol>
                    )}
                  </details>
                </li>
              ))}
            </ol>
          )}
          <Pagination meta={paged.meta} onPage={(p) => setQuery({ page: p })} />
        </>
      )}
    </Card>
  );
}
