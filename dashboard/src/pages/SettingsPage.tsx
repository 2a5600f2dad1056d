import { useEffect, useState } from 'preact/hooks';
import type { z } from 'zod';
import type { OrganizationSchema, PasskeySchema, UserSessionSchema } from '../../../modules/identity/index.ts';
import { api } from '../api.ts';
import { Badge } from '../components/Badge.tsx';
import { Button, OwnerSave } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { ConfirmButton } from '../components/ConfirmButton.tsx';
import { CopyField } from '../components/CopyButton.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input, OtherErrors, Select, useFields } from '../components/Field.tsx';
import { ErrorNotice, Notice } from '../components/Notice.tsx';
import { originErrorNames, originLines, OriginsField } from '../components/OriginsField.tsx';
import { SettingsSection } from '../components/Tabs.tsx';
import { EmailSettings, SellerIdentity } from './SellerSettings.tsx';
import { Table } from '../components/Table.tsx';
import { formatDate, formatDateTime, formatRelative } from '../format.ts';
import { isPasskeyCancel, passkeysSupported, registerPasskey } from '../passkey.ts';
import { loadSession, useSession } from '../session.ts';
import type { Member } from '../types.ts';
import { useAction } from '../useAction.ts';
import { PortalSettingsCard } from './PortalSettingsCard.tsx';
import { useApi } from '../useApi.ts';

type Organization = z.infer<typeof OrganizationSchema>;
type UserSession = z.infer<typeof UserSessionSchema>;
type Passkey = z.infer<typeof PasskeySchema>;

export function SettingsPage() {
  const session = useSession();
  const owner = session?.current_organization?.role === 'owner';
  return (
    <SettingsSection current="/dashboard/settings">
      <OrganizationSettings owner={owner} />
      <SellerIdentity owner={owner} />
      {owner && <EmailSettings />}
      <Members owner={owner} me={session?.user.id ?? ''} />
      <Sessions />
      <Passkeys />
      <PortalSettingsCard owner={owner} organizationId={session?.current_organization?.id ?? ''} />
    </SettingsSection>
  );
}

function timezones(current: string): string[] {
  const all = (Intl as unknown as { supportedValuesOf?: (k: string) => string[] }).supportedValuesOf?.('timeZone') ?? [];
  return all.includes(current) ? all : [current, ...all];
}

function OrganizationSettings({ owner }: { owner: boolean }) {
  const org = useApi<Organization>('/organization');
  const { fields, set, setFields } = useFields({ name: '', timezone: '', origins: '' });
  const { name, timezone, origins } = fields;
  const { busy, error, run } = useAction<'save'>();
  const [saved, setSaved] = useState(false);
  useEffect(() => {
    if (org.data) setFields({ name: org.data.name, timezone: org.data.timezone, origins: org.data.allowed_redirect_origins.join('\n') });
  }, [org.data]);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    await run('save', async () => {
      const saved = await api.patch<Organization>('/organization', { name, timezone, allowed_redirect_origins: originLines(origins) });
      set('origins')(saved.allowed_redirect_origins.join('\n'));
      await loadSession(); // the navigation's name and every date's time zone follow
      setSaved(true);
    });
  };

  return (
    <Card title="Organization" id="organization">
      <ErrorNotice error={org.error} />
      {org.data && (
        <form onSubmit={save} noValidate>
          <div class="form-row">
            <Field label="Name" name="name" error={error}>
              {(c) => <Input {...c} required maxLength={255} disabled={!owner} value={name} onValue={set('name')} />}
            </Field>
            <Field label="Time zone" name="timezone" error={error} hint="Dates in the dashboard and the days of Home follow it.">
              {(c) => (
                <Select {...c} disabled={!owner} value={timezone} onValue={set('timezone')}>
                  {timezones(timezone).map((tz) => (
                    <option key={tz}>{tz}</option>
                  ))}
                </Select>
              )}
            </Field>
          </div>
          <OriginsField
            value={origins}
            onValue={set('origins')}
            error={error}
            disabled={!owner}
            hint="One per line, such as https://shop.example. A page on one of these may send its own success_url and cancel_url when it creates a checkout session, for every offer; your server may send any with its API key. Scheme, host and port must match exactly."
          />
          <OtherErrors error={error} shown={['name', 'timezone', ...originErrorNames(error)]} />
          <OwnerSave owner={owner} saved={saved} busy={busy === 'save'} />
        </form>
      )}
    </Card>
  );
}

function Members({ owner, me }: { owner: boolean; me: string }) {
  const members = useApi<{ data: Member[] }>('/members');
  const [email, setEmail] = useState('');
  const [role, setRole] = useState('member');
  const { busy, error, run } = useAction<'invite'>();
  // A row's role change or removal: its error shows above the table, not under the form.
  const rows = useAction<'member'>();
  const [invited, setInvited] = useState<{ email: string; link: string } | null>(null);

  const invite = async (e: Event) => {
    e.preventDefault();
    await run('invite', async () => {
      const m = await api.post<Member & { invitation_link: string }>('/members', { email, role });
      setInvited({ email: m.email, link: m.invitation_link });
      setEmail('');
      members.reload();
    });
  };
  const act = (work: () => Promise<unknown>) =>
    rows.run('member', async () => {
      await work();
      members.reload();
    });

  return (
    <Card title="Members" id="members">
      <ErrorNotice error={members.error ?? rows.error} />
      {invited && (
        <div class="notice notice-success" role="status">
          <p>
            <strong>{invited.email}</strong> is invited. Send them this link: it works once, for 24 hours. They join when they accept, signed in with their
            own account, or by setting up their account through the link if they have none.
          </p>
          <CopyField text={invited.link} label="Invitation link" />
        </div>
      )}
      <Table
        caption="Members"
        rows={members.data?.data}
        rowKey={(m) => m.id}
        columns={[
          { header: 'Email', cell: (m) => <>{m.email}{m.id === me && <span class="muted"> (you)</span>}</> },
          {
            header: 'Role',
            cell: (m) =>
              owner && m.id !== me && m.status === 'active' ? (
                <select class="input input-sm" aria-label={`Role of ${m.email}`} value={m.role} onChange={(e) => act(() => api.patch(`/members/${encodeURIComponent(m.id)}`, { role: (e.target as HTMLSelectElement).value }))}>
                  <option value="owner">Owner</option>
                  <option value="member">Member</option>
                </select>
              ) : (
                <Badge status={m.role === 'owner' ? 'active' : 'draft'}>{m.role === 'owner' ? 'Owner' : 'Member'}</Badge>
              ),
          },
          {
            header: 'Joined',
            wide: true,
            cell: (m) =>
              m.status === 'invited' ? (
                (m.invitation_expires_at ?? 0) * 1000 > Date.now() ? <Badge status="open">Invited</Badge> : <Badge status="expired">Invitation expired</Badge>
              ) : (
                formatDate(m.joined_at)
              ),
          },
          {
            header: <span class="sr-only">Actions</span>,
            align: 'right',
            cell: (m) =>
              !owner || m.id === me ? null : m.status === 'invited' ? (
                <ConfirmButton label="Revoke" what={`the invitation of ${m.email}`} onConfirm={() => act(() => api.delete(`/members/${encodeURIComponent(m.id)}`))} />
              ) : (
                <ConfirmButton label="Remove" what={m.email} onConfirm={() => act(() => api.delete(`/members/${encodeURIComponent(m.id)}`))} />
              ),
          },
        ]}
      />
      {owner && (
        <form class="form-row invite" onSubmit={invite} noValidate>
          <Field label="Invite by email" name="email" error={error}>
            {(c) => <Input {...c} type="email" required placeholder="colleague@example.com" value={email} onValue={setEmail} />}
          </Field>
          <Field label="Role" name="role" error={error}>
            {(c) => (
              <Select {...c} value={role} onValue={setRole}>
                <option value="member">Member</option>
                <option value="owner">Owner</option>
              </Select>
            )}
          </Field>
          <div class="field field-button">
            <Button type="submit" variant="primary" busy={busy === 'invite'}>
              Invite
            </Button>
          </div>
        </form>
      )}
      <OtherErrors error={error} shown={['email', 'role']} />
    </Card>
  );
}

/** "Chrome on Linux" from a user agent, enough to tell one's devices apart. */
function device(ua: string | null): string {
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua) ? 'Edge' : /Firefox\//.test(ua) ? 'Firefox' : /Chrome\//.test(ua) ? 'Chrome' : /Safari\//.test(ua) ? 'Safari' : /curl|node|undici/i.test(ua) ? 'Script' : 'Browser';
  const os = /Windows/.test(ua) ? 'Windows' : /iPhone|iPad/.test(ua) ? 'iOS' : /Mac OS X/.test(ua) ? 'macOS' : /Android/.test(ua) ? 'Android' : /Linux/.test(ua) ? 'Linux' : '';
  return os ? `${browser} on ${os}` : browser;
}

function Sessions() {
  const sessions = useApi<{ data: UserSession[] }>('/sessions');
  const { error, run } = useAction<'revoke'>();
  return (
    <Card title="Your sessions" id="sessions">
      <p class="muted">Where you are signed in. Revoke a session you do not recognise: it is signed out at once.</p>
      <ErrorNotice error={sessions.error ?? error} />
      <Table
        caption="Your sessions"
        rows={sessions.data?.data}
        rowKey={(s) => s.id}
        columns={[
          {
            header: 'Device',
            cell: (s) => (
              <>
                {device(s.user_agent)} {s.current && <Badge status="active">This session</Badge>}
                <span class="row-sub">{s.ip ?? ''}</span>
              </>
            ),
          },
          { header: 'Signed in', wide: true, cell: (s) => `${formatDateTime(s.signed_in_at)} (${s.method})` },
          { header: 'Last active', cell: (s) => formatRelative(s.last_seen_at) },
          {
            header: <span class="sr-only">Actions</span>,
            align: 'right',
            cell: (s) =>
              s.current ? null : (
                <ConfirmButton
                  label="Revoke"
                  what={`${device(s.user_agent)} session`}
                  onConfirm={() =>
                    run('revoke', async () => {
                      await api.delete(`/sessions/${encodeURIComponent(s.id)}`);
                      sessions.reload();
                    })
                  }
                />
              ),
          },
        ]}
      />
    </Card>
  );
}

function Passkeys() {
  const passkeys = useApi<{ data: Passkey[] }>('/passkeys');
  const [name, setName] = useState('');
  const { busy, error, run } = useAction<'add' | 'remove'>();
  const add = async (e: Event) => {
    e.preventDefault();
    await run(
      'add',
      async () => {
        await registerPasskey(name.trim() || undefined);
        setName('');
        passkeys.reload();
        await loadSession().catch(() => undefined);
      },
      { ignore: isPasskeyCancel },
    );
  };
  return (
    <Card title="Passkeys" id="passkeys">
      <p class="muted">Sign in with your fingerprint, face or device PIN instead of a password.</p>
      <ErrorNotice error={passkeys.error} />
      <Table
        caption="Your passkeys"
        rows={passkeys.data?.data}
        rowKey={(p) => p.id}
        columns={[
          { header: 'Name', cell: (p) => p.name },
          { header: 'Added', wide: true, cell: (p) => formatDate(p.registered_at) },
          { header: 'Last used', cell: (p) => (p.last_used_at ? formatRelative(p.last_used_at) : 'Never') },
          {
            header: <span class="sr-only">Actions</span>,
            align: 'right',
            cell: (p) => (
              <ConfirmButton
                label="Remove"
                what={p.name}
                onConfirm={() =>
                  run('remove', async () => {
                    await api.delete(`/passkeys/${encodeURIComponent(p.id)}`);
                    passkeys.reload();
                  })
                }
              />
            ),
          },
        ]}
        empty={<EmptyState title="No passkeys yet">Add one below to sign in without typing a password.</EmptyState>}
      />
      {passkeysSupported() ? (
        <form class="form-row invite" onSubmit={add} noValidate>
          <Field label="Passkey name" name="name" error={error} hint="Which device, such as “Work laptop”.">
            {(c) => <Input {...c} maxLength={100} value={name} onValue={setName} />}
          </Field>
          <div class="field field-button">
            <Button type="submit" busy={busy === 'add'}>
              Add a passkey
            </Button>
          </div>
        </form>
      ) : (
        <Notice>This browser cannot create passkeys.</Notice>
      )}
      <OtherErrors error={error} shown={['name']} />
    </Card>
  );
}

