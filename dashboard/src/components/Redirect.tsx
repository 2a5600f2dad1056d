import { useEffect } from 'preact/hooks';
import { navigate } from '../router.tsx';
import { outsideDashboard } from '../signInHref.ts';

/** To a dashboard page in place; to a page the API serves (the OAuth consent page), by loading it. */
export function Redirect({ to }: { to: string }) {
  useEffect(() => (outsideDashboard(to) ? location.replace(to) : navigate(to, { replace: true })), [to]);
  return null;
}
