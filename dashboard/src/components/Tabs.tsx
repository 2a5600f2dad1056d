import type { ComponentChildren } from 'preact';
import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import { Notice } from './Notice.tsx';
import { PageHeader } from './PageHeader.tsx';

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

type SectionProps = { current: string; description?: string; ownersOnly?: string; children: ComponentChildren };

/** A section's page: its header and tabs, then `children`; for a non-owner, `ownersOnly` in their place. */
const sectionPage =
  (title: string, tabs: { href: string; label: string }[], fallback = '') =>
  ({ current, description = fallback, ownersOnly, children }: SectionProps) => {
    const owner = useSession()?.current_organization?.role === 'owner';
    return (
      <>
        <PageHeader title={title} description={description} />
        <Tabs label={title} current={current} tabs={tabs} />
        {ownersOnly && !owner ? <Notice>{ownersOnly}</Notice> : children}
      </>
    );
  };

export const DevelopersSection = sectionPage('Developers', [
  { href: '/dashboard/developers', label: 'API keys' },
  { href: '/dashboard/developers/webhooks', label: 'Webhook endpoints' },
  { href: '/dashboard/developers/oauth-apps', label: 'OAuth apps' },
  { href: '/dashboard/developers/events', label: 'Event log' },
  { href: '/dashboard/developers/test-clocks', label: 'Test clocks' },
]);

export const SettingsSection = sectionPage(
  'Settings',
  [
    { href: '/dashboard/settings', label: 'General' },
    { href: '/dashboard/settings/payments', label: 'Payments' },
    { href: '/dashboard/settings/tax', label: 'Tax' },
    { href: '/dashboard/settings/connected-apps', label: 'Connected apps' },
  ],
  'Your organization, the people in it, and how you sign in.',
);
