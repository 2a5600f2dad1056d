/** Where to go after signing in: a dashboard path only (never another site, never `//host`). */
export function safeNext(next: string | null | undefined): string {
  if (!next || !/^\/dashboard(\/|$|\?)/.test(next) || next.startsWith('//') || next.includes('\\')) return '/dashboard';
  if (next.startsWith('/dashboard/sign-in') || next.startsWith('/dashboard/invitation')) return '/dashboard';
  return next;
}

/** The sign-in page, coming back here afterwards. */
export function signInHref(from = location.pathname + location.search): string {
  const next = safeNext(from);
  return next === '/dashboard' ? '/dashboard/sign-in' : `/dashboard/sign-in?next=${encodeURIComponent(next)}`;
}
