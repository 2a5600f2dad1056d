import { Tabs } from './Tabs.tsx';

export function DevelopersTabs({ current }: { current: string }) {
  return (
    <Tabs
      label="Developers"
      current={current}
      tabs={[
        { href: '/dashboard/developers', label: 'API keys' },
        { href: '/dashboard/developers/webhooks', label: 'Webhook endpoints' },
        { href: '/dashboard/developers/oauth-apps', label: 'OAuth apps' },
        { href: '/dashboard/developers/events', label: 'Event log' },
        { href: '/dashboard/developers/test-clocks', label: 'Test clocks' },
      ]}
    />
  );
}
