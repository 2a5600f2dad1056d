import { useState } from 'preact/hooks';
import type { z } from 'zod';
import type { OAuthAppSchema, OAuthConnectionSchema } from '../../../modules/oauth/index.ts';
import { api, type ApiError } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyField } from '../components/CopyButton.tsx';
import { DevelopersSection, SettingsSection } from '../components/Tabs.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { originLines } from '../components/OriginsField.tsx';
import { Field, Input, OtherErrors, useFields } from '../components/Field.tsx';
import { ErrorNotice, Loading } from '../components/Notice.tsx';
import { PagedTable } from '../components/Table.tsx';
import { formatDateTime, formatRelative } from '../format.ts';
import { useLocation } from '../router.tsx';
import { useSession } from '../session.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { pageOfList } from './pageKit.tsx';

/** The management routes of docs/oauth.md. */
type OAuthApp = z.infer<typeof OAuthAppSchema>;
type Connection = z.infer<typeof OAuthConnectionSchema>;

/** "redirect_uris.1" errors, as "Line 2: …", for the one textarea that holds them all. */
function redirectErrors(error: ApiError | null): string[] {
  if (!error) return [];
  return Object.entries(error.fields)
    .filter(([k]) => k === 'redirect_uris' || k.startsWith('redirect_uris.'))
    .map(([k, m]) => (k === 'redirect_uris' ? m[0]! : `Line ${Number(k.split('.')[1]) + 1}: ${m[0]!}`));
}

/** Developers → OAuth apps (owners): apps that act for a person, registered by this organization. */
export function OAuthAppsPage() {
  return (
    <DevelopersSection current="/dashboard/developers/oauth-apps" description="API keys for your server's calls, webhook endpoints that hear of your sales, and the log of everything that happened." ownersOnly="Only owners of the organization register OAuth apps.">
      <OAuthApps />
    </DevelopersSection>
  );
}

const NEW_APP = { name: '', uris: '', isPublic: false };

/** Redirect URIs or scopes: one per line, as code. */
function CodeList({ items }: { items: string[] }) {
  return (
    <ul class="plain-list uri-list">
      {items.map((item) => (
        <li key={item}>
          <code>{item}</code>
        </li>
      ))}
    </ul>
  );
}

function OAuthApps() {
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1);
  const apps = useApi<{ data: OAuthApp[] }>('/oauth-apps');
  const { fields, set, setFields } = useFields(NEW_APP);
  const { name, uris, isPublic } = fields;
  const { busy, error, run } = useAction<'register'>();
  // A row's deletion: its error shows above the table, not under the form.
  const rows = useAction<'delete'>();
  const [created, setCreated] = useState<(OAuthApp & { client_secret: string | null }) | null>(null);
  const paged = apps.data ? pageOfList(apps.data.data, page) : null;

  const register = async (e: Event) => {
    e.preventDefault();
    await run('register', async () => {
      setCreated(await api.post<OAuthApp & { client_secret: string | null }>('/oauth-apps', { name, redirect_uris: originLines(uris), public: isPublic }));
      setFields(NEW_APP);
      apps.reload();
    });
  };
  const uriErrors = redirectErrors(error);

  return (
    <>
      {created && (
        <div class="notice notice-success secret-once" role="status">
          <p>
            <strong>“{created.name}” registered.</strong>{' '}
            {created.client_secret ? 'Copy its client secret now: it is shown only this once (only its hash is kept).' : 'A public app has no secret: it proves itself with PKCE.'}
          </p>
          <p class="share-label">Client id</p>
          <CopyField text={created.client_id} label="The app's client id" />
          {created.client_secret && (
            <>
              <p class="share-label">Client secret</p>
              <CopyField text={created.client_secret} label="The app's client secret" />
            </>
          )}
          <Button size="sm" onClick={() => setCreated(null)}>
            {created.client_secret ? 'I have copied it' : 'Done'}
          </Button>
        </div>
      )}
      <Card title="Register an OAuth app" id="register-app">
        <p class="muted">An app that people connect to their account here (authorization code with PKCE). See docs/oauth.md for the endpoints and scopes.</p>
        <form onSubmit={register} noValidate class="stack-form wide-form">
          <Field label="Name" name="name" error={error} hint="Shown to people on the consent page.">
            {(c) => <Input {...c} required maxLength={255} value={name} onValue={set('name')} />}
          </Field>
          <RedirectUrisField value={uris} onValue={set('uris')} errors={uriErrors} />
          <label class="check">
            <input type="checkbox" checked={isPublic} onChange={(e) => set('isPublic')((e.target as HTMLInputElement).checked)} />
            Public app (runs in a browser or on a device: no client secret, PKCE only)
          </label>
          <OtherErrors error={error} shown={['name', 'public', 'redirect_uris', ...Object.keys(error?.fields ?? {}).filter((k) => k.startsWith('redirect_uris.'))]} />
          <div class="form-actions">
            <Button type="submit" variant="primary" busy={busy === 'register'}>
              Register app
            </Button>
          </div>
        </form>
      </Card>
      <Card title="OAuth apps" id="oauth-apps">
        <ErrorNotice error={apps.error ?? rows.error} />
        {!paged && !apps.error && <Loading />}
        <PagedTable
          caption="OAuth apps"
          page={paged}
          rowKey={(a) => a.client_id}
          columns={[
            {
              header: 'Name',
              cell: (a) => (
                <>
                  {a.name}
                  <span class="row-sub mono">{a.client_id}</span>
                </>
              ),
            },
            { header: 'Type', cell: (a) => <Badge status={a.public ? 'draft' : 'active'}>{a.public ? 'Public' : 'Confidential'}</Badge> },
            {
              header: 'Redirect URIs',
              wide: true,
              cell: (a) => <CodeList items={a.redirect_uris} />,
            },
            { header: 'Registered', wide: true, cell: (a) => <span class="nowrap">{formatDateTime(a.created_at)}</span> },
            {
              header: <span class="sr-only">Actions</span>,
              align: 'right',
              cell: (a) => (
                <ConfirmButton
                  label="Delete"
                  what={a.name}
                  onConfirm={() =>
                    rows.run('delete', async () => {
                      await api.delete(`/oauth-apps/${encodeURIComponent(a.client_id)}`);
                      apps.reload();
                    })
                  }
                />
              ),
            },
          ]}
          empty={<EmptyState title="No OAuth apps yet">Register one above to let an app act for the people who connect it.</EmptyState>}
        />
      </Card>
    </>
  );
}

function RedirectUrisField({ value, onValue, errors }: { value: string; onValue: (v: string) => void; errors: string[] }) {
  return (
    <div class={`field${errors.length ? ' field-invalid' : ''}`}>
      <label for="redirect-uris">Redirect URIs</label>
      <textarea
        id="redirect-uris"
        name="redirect_uris"
        class="input"
        rows={3}
        spellcheck={false}
        placeholder="https://app.example/oauth/callback"
        aria-describedby={`redirect-uris-hint${errors.length ? ' redirect-uris-error' : ''}`}
        aria-invalid={errors.length ? true : undefined}
        value={value}
        onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)}
      />
      <p class="field-hint" id="redirect-uris-hint">
        One per line, up to 10, matched exactly. https, or http to 127.0.0.1 or localhost only.
      </p>
      {errors.length > 0 && (
        <div class="field-error" id="redirect-uris-error">
          {errors.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
    </div>
  );
}

/** Settings → Connected apps: the apps this person let act for them, in any of their organizations. */
export function ConnectedAppsPage() {
  const session = useSession();
  const { query } = useLocation();
  const page = Number(query.get('page') ?? 1);
  const list = useApi<{ data: Connection[] }>('/connected-apps');
  const { error, run } = useAction<'disconnect'>();
  const orgName = (id: string) => [session?.current_organization, ...(session?.organizations ?? [])].find((o) => o?.id === id)?.name ?? id;
  const paged = list.data ? pageOfList(list.data.data, page) : null;
  return (
    <SettingsSection current="/dashboard/settings/connected-apps">
      <Card title="Connected apps" id="connected-apps">
        <p class="muted">Apps you allowed to act for you. Disconnect one you no longer use: its access stops at once.</p>
        <ErrorNotice error={list.error ?? error} />
        {!paged && !list.error && <Loading />}
        <PagedTable
          caption="Connected apps"
          page={paged}
          rowKey={(c) => c.id}
          columns={[
            {
              header: 'App',
              cell: (c) => (
                <>
                  {c.app_name}
                  <span class="row-sub">{orgName(c.organization_id)}</span>
                </>
              ),
            },
            {
              header: 'Can',
              cell: (c) => <CodeList items={c.scopes} />,
            },
            { header: 'Connected', wide: true, cell: (c) => <span class="nowrap">{formatDateTime(c.granted_at)}</span> },
            { header: 'Last used', wide: true, cell: (c) => (c.last_used_at ? formatRelative(c.last_used_at) : 'Never') },
            {
              header: <span class="sr-only">Actions</span>,
              align: 'right',
              cell: (c) => (
                <ConfirmButton
                  label="Disconnect"
                  what={c.app_name}
                  onConfirm={() =>
                    run('disconnect', async () => {
                      await api.delete(`/connected-apps/${encodeURIComponent(c.id)}`);
                      list.reload();
                    })
                  }
                />
              ),
            },
          ]}
          empty={<EmptyState title="No connected apps">When you allow an app to use your account (on its consent page), it shows here and you can disconnect it.</EmptyState>}
        />
      </Card>
    </SettingsSection>
  );
}
