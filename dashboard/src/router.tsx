/** A client router for paths under /dashboard. Links are real <a href>, so opening one in a new tab works. */
import type { AnchorHTMLAttributes, ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

export const BASE = '/dashboard';

const listeners = new Set<() => void>();
const emit = () => {
  for (const listener of listeners) listener();
};
window.addEventListener('popstate', emit);

export function navigate(to: string, options: { replace?: boolean } = {}): void {
  if (to === location.pathname + location.search + location.hash) return;
  if (options.replace) history.replaceState(null, '', to);
  else history.pushState(null, '', to);
  emit();
  // A new page starts at its top (a query change on the same page keeps the scroll).
  if (!options.replace) window.scrollTo(0, 0);
}

export type Location = { path: string; query: URLSearchParams; hash: string };

const read = (): Location => ({ path: location.pathname.replace(/\/+$/, '') || '/', query: new URLSearchParams(location.search), hash: location.hash });

/** The current location; redraws on every navigation. */
export function useLocation(): Location {
  const [loc, setLoc] = useState(read);
  useEffect(() => {
    const listener = () => setLoc(read());
    listeners.add(listener);
    return () => void listeners.delete(listener);
  }, []);
  return loc;
}

/**
 * Changes some query parameters of the current path (null or '' removes one). `replace` for
 * changes that should not each make a Back step (a slider, typing in a filter).
 */
export function setQuery(changes: Record<string, string | number | null | undefined>, options: { replace?: boolean } = {}): void {
  const query = new URLSearchParams(location.search);
  for (const [key, value] of Object.entries(changes)) {
    if (value === null || value === undefined || value === '') query.delete(key);
    else query.set(key, String(value));
  }
  const s = query.toString();
  navigate(`${location.pathname}${s ? `?${s}` : ''}`, options);
}

/** `/dashboard/sales/:id` against a path: the parameters, or null when it does not match. */
export function matchPath(pattern: string, path: string): Record<string, string> | null {
  const p = pattern.split('/').filter(Boolean);
  const s = path.split('/').filter(Boolean);
  if (p.length !== s.length) return null;
  const params: Record<string, string> = {};
  for (let i = 0; i < p.length; i++) {
    if (p[i]!.startsWith(':')) params[p[i]!.slice(1)] = decodeURIComponent(s[i]!);
    else if (p[i] !== s[i]) return null;
  }
  return params;
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { href: string; children?: ComponentChildren };

export function Link({ href, onClick, children, ...rest }: LinkProps) {
  return (
    <a
      href={href}
      {...rest}
      onClick={(event) => {
        onClick?.(event);
        if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
        event.preventDefault();
        navigate(href);
      }}
    >
      {children}
    </a>
  );
}
