import { useEffect, useState } from 'preact/hooks';
import { api } from '../api.ts';
import { Button } from '../components/Button.tsx';
import { Field, Input } from '../components/Field.tsx';
import { Notice } from '../components/Notice.tsx';
import { isPasskeyCancel, passkeysSupported, signInWithPasskey } from '../passkey.ts';
import { navigate, useLocation } from '../router.tsx';
import { setSession, type SessionAnswer } from '../session.ts';
import { outsideDashboard, safeNext } from '../signInHref.ts';
import { useAction } from '../useAction.ts';

export function SignInPage() {
  const { query } = useLocation();
  const next = safeNext(query.get('next'));
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const { busy, error, run } = useAction<'password' | 'passkey'>();
  useEffect(() => {
    document.title = 'Sign in · Dashboard';
  }, []);

  const done = (answer: SessionAnswer) => {
    setSession(answer);
    // Signed in, App renders <Redirect> to `next`, which loads a page outside the dashboard itself.
    if (!outsideDashboard(next)) navigate(next, { replace: true });
  };

  // Both stay busy once signed in: the page is leaving for `next`.
  const submit = async (event: Event) => {
    event.preventDefault();
    await run('password', async () => done(await api.post<SessionAnswer>('/sign-in', { email, password }, { allowUnauthenticated: true })), { keepBusy: true });
  };

  const passkey = () => run('passkey', async () => done(await signInWithPasskey()), { keepBusy: true, ignore: isPasskeyCancel });

  // One message for the form unless it names a field we show.
  const formMessage = error && !error.field('email') && !error.field('password') ? error.message : null;

  return (
    <main class="auth" id="main">
      <div class="auth-card">
        <p class="auth-brand">Commerce</p>
        <h1>Sign in</h1>
        {query.get('signed_out') && <Notice tone="success">You are signed out.</Notice>}
        {formMessage && <Notice tone="error">{formMessage}</Notice>}
        <form onSubmit={submit} noValidate>
          <Field label="Email" name="email" error={error}>
            {(c) => <Input {...c} type="email" autoComplete="username webauthn" required value={email} onValue={setEmail} />}
          </Field>
          <Field label="Password" name="password" error={error}>
            {(c) => <Input {...c} type="password" autoComplete="current-password" required value={password} onValue={setPassword} />}
          </Field>
          <Button type="submit" variant="primary" class="btn-block" busy={busy === 'password'} disabled={busy !== null}>
            Sign in
          </Button>
        </form>
        {passkeysSupported() && (
          <>
            <div class="auth-or" role="separator">
              or
            </div>
            <Button class="btn-block" onClick={passkey} busy={busy === 'passkey'} disabled={busy !== null}>
              Sign in with a passkey
            </Button>
          </>
        )}
        <p class="auth-foot">No account yet? The owner of your organization invites you; the link in the invitation sets you up.</p>
      </div>
    </main>
  );
}
