import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { NAV, type NavKey } from '../routes.ts';
import { Link, navigate, useLocation } from '../router.tsx';
import { signOut, useSession } from '../session.ts';
import { OrganizationSwitcher } from './OrganizationSwitcher.tsx';

/** The frame of every signed-in page: the navigation (a drawer on phones), the organization, the person. */
export function Layout({ nav, children }: { nav: NavKey; children: ComponentChildren }) {
  const session = useSession();
  const { path } = useLocation();
  const [open, setOpen] = useState(false);
  const first = useRef(true);

  // After a navigation, close the drawer and put focus on the new page's title (screen readers read it).
  useEffect(() => {
    setOpen(false);
    if (first.current) {
      first.current = false;
      return;
    }
    requestAnimationFrame(() => document.getElementById('page-title')?.focus({ preventScroll: true }));
  }, [path]);

  useEffect(() => {
    if (!open) return;
    const onKey = (e: KeyboardEvent) => e.key === 'Escape' && setOpen(false);
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [open]);

  const out = async () => {
    await signOut().catch(() => undefined);
    navigate('/dashboard/sign-in?signed_out=1', { replace: true });
  };

  return (
    <div class={`shell${open ? ' nav-open' : ''}`}>
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <button type="button" class="btn btn-ghost menu-button" aria-expanded={open} aria-controls="sidebar" onClick={() => setOpen(!open)}>
          <span class="menu-icon" aria-hidden="true" />
          <span class="sr-only">Menu</span>
        </button>
        <span class="topbar-title">{session?.current_organization?.name ?? 'Dashboard'}</span>
      </header>
      <aside id="sidebar" class="sidebar">
        <div class="brand">Commerce</div>
        <OrganizationSwitcher nav={nav} />
        <nav aria-label="Main">
          <ul class="nav-list">
            {NAV.map((item) => (
              <li key={item.key}>
                <Link href={item.href} class={`nav-link${item.key === nav ? ' active' : ''}`} aria-current={item.key === nav ? 'page' : undefined}>
                  {item.label}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="sidebar-foot">
          <span class="user-email" title={session?.user.email}>
            {session?.user.email}
          </span>
          <button type="button" class="btn btn-ghost btn-sm" onClick={out}>
            Sign out
          </button>
        </div>
      </aside>
      {open && <div class="scrim" onClick={() => setOpen(false)} aria-hidden="true" />}
      <main id="main" class="main" tabIndex={-1}>
        {children}
      </main>
    </div>
  );
}
