import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Button } from '../components/Button.tsx';
import { Field, Input } from '../components/Field.tsx';
import { Loading, Notice } from '../components/Notice.tsx';
import { acceptInvitationWithPasskey, isPasskeyCancel, passkeysSupported } from '../passkey.ts';
import { Link, navigate } from '../router.tsx';
import { setSession, type SessionAnswer } from '../session.ts';
import { useAction } from '../useAction.ts';

type Invitation = { email: string; expires_at: number; has_password: boolean };

/** `/dashboard/invitation#token=…`: the token stays in the fragment, which no server ever receives. */
function tokenFromHash(): string {
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? '';
}

export function InvitationPage() {
  const [token] = useState(tokenFromHash);
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction<'password' | 'passkey'>();

  useEffect(() => {
    document.title = 'Invitation · Dashboard';
    if (!token) {
      setLoadError(new ApiError(410, 'invitation_invalid', 'This page needs the whole invitation link.'));
      return;
    }
    api.get<Invitation>(`/invitations/${encodeURIComponent(token)}`, undefined, { allowUnauthenticated: true }).then(setInvitation, setLoadError);
  }, [token]);

  const done = (answer: SessionAnswer) => {
    setSession(answer);
    navigate('/dashboard', { replace: true }); // drops the used token from the address bar and history
  };

  // Both stay busy once signed in: the page is leaving for the dashboard.
  const submit = async (event: Event) => {
    event.preventDefault();
    await run('password', async () => done(await api.post<SessionAnswer>('/invitations/accept', { token, password }, { allowUnauthenticated: true })), { keepBusy: true });
  };

  const passkey = () => run('passkey', async () => done(await acceptInvitationWithPasskey(token)), { keepBusy: true, ignore: isPasskeyCancel });

  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="auth-brand">Commerce</p>
        <h1>{invitation?.has_password ? 'Choose a new password' : 'Welcome'}</h1>
        {loadError ? (
          <>
            <Notice tone="error">
              {loadError.status === 410 ? 'This invitation link has been used, has expired or was replaced by a newer one.' : loadError.message}
            </Notice>
            <p class="auth-foot">
              Ask the owner of your organization for a new link, or <Link href="/dashboard/sign-in">sign in</Link> if you already have a password or passkey.
            </p>
          </>
        ) : !invitation ? (
          <Loading label="Checking the invitation…" />
        ) : (
          <>
            <p>
              Set up how <strong>{invitation.email}</strong> signs in. The link works until it is used, at most 24 hours.
            </p>
            {error && !error.field('password') && <Notice tone="error">{error.message}</Notice>}
            <form onSubmit={submit} noValidate>
              <input type="email" hidden autoComplete="username" value={invitation.email} readOnly />
              <Field label="Password" name="password" error={error} hint="At least 8 characters; a long passphrase is best.">
                {(c) => <Input {...c} type="password" autoComplete="new-password" minLength={8} required value={password} onValue={setPassword} />}
              </Field>
              <Button type="submit" variant="primary" class="btn-block" busy={busy === 'password'} disabled={busy !== null}>
                Set password and sign in
              </Button>
            </form>
            {passkeysSupported() && (
              <>
                <div class="auth-or" role="separator">
                  or
                </div>
                <Button class="btn-block" onClick={passkey} busy={busy === 'passkey'} disabled={busy !== null}>
                  Use a passkey instead
                </Button>
              </>
            )}
          </>
        )}
      </div>
    </main>
  );
}
