import { useState } from 'preact/hooks';
import { useMembers } from '../actors.ts';
import type { z } from 'zod';
import type { ApiKeySchema } from '../../../modules/identity/index.ts';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyField } from '../components/CopyButton.tsx';
import { DevelopersSection } from '../components/Tabs.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select } from '../components/Field.tsx';
import { ErrorNotice } from '../components/Notice.tsx';
import { Table } from '../components/Table.tsx';
import { formatDate, formatDateTime } from '../format.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';

type ApiKey = z.infer<typeof ApiKeySchema>;

const EXPIRIES: { label: string; days: number | null }[] = [
  { label: 'Never', days: null },
  { label: 'In 30 days', days: 30 },
  { label: 'In 90 days', days: 90 },
  { label: 'In a year', days: 365 },
];

/** API keys: create (the token shown once), list, revoke. Owners only, as the routes are. */
export function DevelopersPage() {
  return (
    <DevelopersSection current="/dashboard/developers" description="API keys for your server's calls to the public API, and the log of everything that happened in your organization." ownersOnly="Only owners of the organization manage API keys. Ask an owner for one.">
      <ApiKeys />
    </DevelopersSection>
  );
}

function ApiKeys() {
  const keys = useApi<{ data: ApiKey[] }>('/api-keys');
  const members = useMembers();
  const [name, setName] = useState('');
  const [expiry, setExpiry] = useState('Never');
  const { busy, error, run } = useAction<'create'>();
  const [created, setCreated] = useState<(ApiKey & { token: string }) | null>(null);
  // A row's revocation: its error shows above the table, not under the form.
  const rows = useAction<'revoke'>();
  const now = Date.now() / 1000;

  const create = async (e: Event) => {
    e.preventDefault();
    await run('create', async () => {
      const days = EXPIRIES.find((x) => x.label === expiry)?.days ?? null;
      const key = await api.post<ApiKey & { token: string }>('/api-keys', { name, expires_at: days ? Math.floor(now) + days * 86_400 : null });
      setCreated(key);
      setName('');
      keys.reload();
    });
  };

  const status = (k: ApiKey) => (k.revoked_at ? 'revoked' : k.expires_at !== null && k.expires_at <= now ? 'expired' : 'active');
  // A key acts with its creator's current role; a removed creator's key is revoked.
  const who = (k: ApiKey) => {
    const member = members.find((m) => m.id === k.user_id);
    const email = k.user_email ?? member?.email ?? k.user_id;
    return member ? `${email} (${member.role})` : email;
  };

  return (
    <>
      {created && (
        <div class="notice notice-success token-once" role="status">
          <p>
            <strong>Key “{created.name}” created.</strong> Copy its token now: it is shown only this once and cannot be read again.
          </p>
          <CopyField text={created.token} label="The new API key's token" />
          <p class="muted small">Send it as <code>Authorization: Bearer …</code> from your server; never put it in a web page.</p>
          <Button size="sm" onClick={() => setCreated(null)}>
            I have copied it
          </Button>
        </div>
      )}
      <Card title="Create an API key" id="create-key">
        <form class="form-row" onSubmit={create} noValidate>
          <Field label="Name" name="name" error={error} hint="What uses it, such as “Production server”.">
            {(c) => <Input {...c} required maxLength={255} value={name} onValue={setName} />}
          </Field>
          <Field label="Expires" name="expires_at" error={error}>
            {(c) => (
              <Select {...c} value={expiry} onValue={setExpiry}>
                {EXPIRIES.map((x) => (
                  <option key={x.label}>{x.label}</option>
                ))}
              </Select>
            )}
          </Field>
          <div class="field field-button">
            <Button type="submit" variant="primary" busy={busy === 'create'}>
              Create key
            </Button>
          </div>
        </form>
        <OtherErrors error={error} shown={['name', 'expires_at']} />
      </Card>
      <Card title="API keys" id="keys">
        <ErrorNotice error={keys.error ?? rows.error} />
        <Table
          caption="API keys"
          rows={keys.data?.data}
          rowKey={(k) => k.id}
          columns={[
            {
              header: 'Name',
              cell: (k) => (
                <>
                  {k.name}
                  <span class="row-sub mono">{k.id}</span>
                </>
              ),
            },
            { header: 'Status', cell: (k) => <Badge status={status(k)} /> },
            { header: 'Created by', wide: true, cell: (k) => who(k) },
            { header: 'Created', wide: true, cell: (k) => <span class="nowrap">{formatDateTime(k.created_at)}</span> },
            { header: 'Expires', wide: true, cell: (k) => (k.expires_at ? formatDate(k.expires_at) : 'Never') },
            {
              header: <span class="sr-only">Actions</span>,
              align: 'right',
              cell: (k) =>
                status(k) === 'active' ? (
                  <ConfirmButton
                    label="Revoke"
                    what={k.name}
                    onConfirm={() =>
                      rows.run('revoke', async () => {
                        await api.delete(`/api-keys/${encodeURIComponent(k.id)}`);
                        keys.reload();
                      })
                    }
                  />
                ) : null,
            },
          ]}
          empty={<EmptyState title="No API keys yet">Create one above for your server to call the public API (catalog, checkout sessions).</EmptyState>}
        />
      </Card>
    </>
  );
}
