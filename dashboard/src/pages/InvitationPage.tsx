import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { Button } from '../components/Button.tsx';
import { Field, Input } from '../components/Field.tsx';
import { Loading, Notice } from '../components/Notice.tsx';
import { acceptInvitationWithPasskey, isPasskeyCancel, passkeysSupported } from '../passkey.ts';
import { Link, navigate } from '../router.tsx';
import { setSession, signOut, useSession, type SessionAnswer } from '../session.ts';
import { useAction } from '../useAction.ts';

/**
 * `account`: a link to set how a person signs in (the CLI's, or a password reset).
 * `membership`: an invitation to join an organization; it says nothing of whether the email has an account.
 * Hand-kept: the route's schema is one object with optional fields, which would lose this union.
 */
type Invitation =
  | { kind: 'account'; email: string; expires_at: number; has_password: boolean }
  | { kind: 'membership'; id: string; email: string; expires_at: number; organization: { name: string }; role: 'owner' | 'member' };

/** `/dashboard/invitation#token=…`: the token stays in the fragment, which no server ever receives. */
function tokenFromHash(): string {
  return new URLSearchParams(location.hash.replace(/^#/, '')).get('token') ?? '';
}

export function InvitationPage() {
  const [token] = useState(tokenFromHash);
  const [invitation, setInvitation] = useState<Invitation | null>(null);
  const [loadError, setLoadError] = useState<ApiError | null>(null);

  useEffect(() => {
    document.title = 'Invitation · Dashboard';
    if (!token) {
      setLoadError(new ApiError(410, 'invitation_invalid', 'This page needs the whole invitation link.'));
      return;
    }
    // Posted, never put in a path or query: those reach access logs.
    api.post<Invitation>('/invitations/lookup', { token }, { allowUnauthenticated: true }).then(setInvitation, setLoadError);
  }, [token]);

  const title = !invitation ? 'Welcome' : invitation.kind === 'membership' ? `Join ${invitation.organization.name}` : invitation.has_password ? 'Choose a new password' : 'Welcome';

  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="auth-brand">Commerce</p>
        <h1>{title}</h1>
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
        ) : invitation.kind === 'membership' ? (
          <MembershipInvitation token={token} invitation={invitation} />
        ) : (
          <>
            <p>
              Set up how <strong>{invitation.email}</strong> signs in. The link works until it is used, at most 24 hours.
            </p>
            <SetUpAccount token={token} email={invitation.email} />
          </>
        )}
      </div>
    </main>
  );
}

/**
 * Signed in as the invited email: accept or decline. Signed in as someone else: sign out first.
 * Signed out: sign in to accept (an existing account), or set up the account through this link
 * (an email without one). The page cannot tell which applies, by design.
 */
function MembershipInvitation({ token, invitation }: { token: string; invitation: Extract<Invitation, { kind: 'membership' }> }) {
  const session = useSession();
  const { busy, error, run } = useAction<'accept' | 'decline' | 'sign-out'>();
  const [declined, setDeclined] = useState(false);
  const role = invitation.role === 'owner' ? 'an owner' : 'a member';

  if (session === undefined) return <Loading label="Checking who is signed in…" />;
  if (declined) return <Notice tone="success">You declined the invitation to {invitation.organization.name}.</Notice>;

  if (session && session.user.email === invitation.email) {
    const accept = () =>
      run(
        'accept',
        async () => {
          setSession(await api.post<SessionAnswer>(`/invitations/${encodeURIComponent(invitation.id)}/accept`, { token }));
          navigate('/dashboard', { replace: true }); // drops the token from the address bar and history
        },
        { keepBusy: true },
      );
    const decline = () =>
      run('decline', async () => {
        await api.post(`/invitations/${encodeURIComponent(invitation.id)}/decline`, {});
        setDeclined(true);
      });
    return (
      <>
        <p>
          <strong>{invitation.organization.name}</strong> invited you (<strong>{invitation.email}</strong>) to join as {role}.
        </p>
        {error && <Notice tone="error">{error.message}</Notice>}
        <Button variant="primary" class="btn-block" onClick={accept} busy={busy === 'accept'} disabled={busy !== null}>
          Accept and join {invitation.organization.name}
        </Button>
        <div class="auth-or" role="separator">
          or
        </div>
        <Button class="btn-block" onClick={decline} busy={busy === 'decline'} disabled={busy !== null}>
          Decline
        </Button>
      </>
    );
  }

  if (session) {
    return (
      <>
        <p>
          This invitation is for <strong>{invitation.email}</strong>, but you are signed in as <strong>{session.user.email}</strong>.
        </p>
        <Button class="btn-block" onClick={() => run('sign-out', signOut)} busy={busy === 'sign-out'} disabled={busy !== null}>
          Sign out to continue
        </Button>
      </>
    );
  }

  return (
    <>
      <p>
        <strong>{invitation.organization.name}</strong> invited <strong>{invitation.email}</strong> to join as {role}. The link works until it is
        used, at most 24 hours.
      </p>
      <p>
        Already have an account? <Link href="/dashboard/sign-in">Sign in</Link> and accept the invitation on your Home page.
      </p>
      <h2 class="auth-subtitle">New here? Set up your account</h2>
      <SetUpAccount token={token} email={invitation.email} />
    </>
  );
}

/** A password (or a passkey) for the person the link names; both stay busy once signed in, as the page leaves. */
function SetUpAccount({ token, email }: { token: string; email: string }) {
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction<'password' | 'passkey'>();

  const done = (answer: SessionAnswer) => {
    setSession(answer);
    navigate('/dashboard', { replace: true }); // drops the used token from the address bar and history
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    await run('password', async () => done(await api.post<SessionAnswer>('/invitations/accept', { token, password }, { allowUnauthenticated: true })), { keepBusy: true });
  };
  const passkey = () => run('passkey', async () => done(await acceptInvitationWithPasskey(token)), { keepBusy: true, ignore: isPasskeyCancel });

  return (
    <>
      {error && !error.field('password') && (
        <Notice tone="error">
          {error.code === 'account_exists' ? (
            <>
              {error.message} <Link href="/dashboard/sign-in">Sign in</Link>
            </>
          ) : (
            error.message
          )}
        </Notice>
      )}
      <form onSubmit={submit} noValidate>
        <input type="email" hidden autoComplete="username" value={email} readOnly />
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
  );
}
