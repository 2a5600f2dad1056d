import { useEffect, useState } from 'preact/hooks';
import { setUnauthenticatedHandler } from './api.ts';
import { Layout } from './components/Layout.tsx';
import { Loading, Notice } from './components/Notice.tsx';
import { PageHeader } from './components/PageHeader.tsx';
import { PendingInvitations } from './components/PendingInvitations.tsx';
import { Redirect } from './components/Redirect.tsx';
import { InvitationPage } from './pages/InvitationPage.tsx';
import { SignInPage } from './pages/SignInPage.tsx';
import { matchPath, navigate, useLocation } from './router.tsx';
import { ROUTES } from './routes.ts';
import { bootSession, setSession, useSession } from './session.ts';
import { safeNext, signInHref } from './signInHref.ts';

export function App() {
  const loc = useLocation();
  const session = useSession();
  const [bootError, setBootError] = useState<Error | null>(null);

  useEffect(() => {
    // Any 401 (the session ended or was revoked elsewhere): sign in again, then come back.
    setUnauthenticatedHandler(() => {
      setSession(null);
      navigate(signInHref(), { replace: true });
    });
    bootSession().catch(setBootError);
  }, []);

  if (loc.path === '/dashboard/invitation') return <InvitationPage />;
  if (bootError) {
    return (
      <main class="auth" id="main">
        <div class="auth-card">
          <h1>The dashboard could not start</h1>
          <Notice tone="error">{bootError.message}</Notice>
        </div>
      </main>
    );
  }
  if (session === undefined) return <Loading label="Loading the dashboard…" />;
  if (loc.path === '/dashboard/sign-in') return session ? <Redirect to={safeNext(loc.query.get('next'))} /> : <SignInPage />;
  if (session === null) return <Redirect to={signInHref()} />;

  const orgKey = session.current_organization?.id ?? 'none';
  if (!session.current_organization) {
    return (
      <Layout nav="home">
        <PageHeader title="No organization" />
        <Notice>You belong to no organization yet. Ask an owner to invite you to theirs.</Notice>
        <PendingInvitations />
      </Layout>
    );
  }
  for (const route of ROUTES) {
    const params = matchPath(route.path, loc.path);
    if (params) {
      const Page = route.page;
      return (
        <Layout nav={route.nav}>
          <Page key={orgKey} params={params} />
        </Layout>
      );
    }
  }
  return (
    <Layout nav="home">
      <PageHeader title="Page not found" />
      <Notice>There is no page at this address. Use the navigation to find your way.</Notice>
    </Layout>
  );
}
