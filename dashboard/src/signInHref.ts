/** The OAuth consent page a signed-out person was sent from (served by the API, not the dashboard). */
const CONSENT_PAGE = /^\/oauth\/interaction\/[A-Za-z0-9_-]{1,100}$/;

/** Whether `next` leaves the dashboard's own pages (then the browser loads it). */
export const outsideDashboard = (next: string): boolean => CONSENT_PAGE.test(next);

/** Where to go after signing in: a dashboard path or the OAuth consent page (never another site, never `//host`). */
export function safeNext(next: string | null | undefined): string {
  if (next && CONSENT_PAGE.test(next)) return next;
  if (!next || !/^\/dashboard(\/|$|\?)/.test(next) || next.startsWith('//') || next.includes('\\')) return '/dashboard';
  if (next.startsWith('/dashboard/sign-in') || next.startsWith('/dashboard/invitation')) return '/dashboard';
  return next;
}

/** The sign-in page, coming back here afterwards. */
export function signInHref(from = location.pathname + location.search): string {
  const next = safeNext(from);
  return next === '/dashboard' ? '/dashboard/sign-in' : `/dashboard/sign-in?next=${encodeURIComponent(next)}`;
}
