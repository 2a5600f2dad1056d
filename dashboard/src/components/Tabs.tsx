import { Link } from '../router.tsx';

/** Sub-pages of a section as links (each its own URL). */
export function Tabs({ label, tabs, current }: { label: string; tabs: { href: string; label: string }[]; current: string }) {
  return (
    <nav class="tabs" aria-label={label}>
      {tabs.map((t) => (
        <Link key={t.href} href={t.href} class={`tab${t.href === current ? ' active' : ''}`} aria-current={t.href === current ? 'page' : undefined}>
          {t.label}
        </Link>
      ))}
    </nav>
  );
}
