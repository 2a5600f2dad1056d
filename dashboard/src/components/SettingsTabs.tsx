import { Tabs } from './Tabs.tsx';

export function SettingsTabs({ current }: { current: string }) {
  return (
    <Tabs
      label="Settings"
      current={current}
      tabs={[
        { href: '/dashboard/settings', label: 'General' },
        { href: '/dashboard/settings/payments', label: 'Payments' },
        { href: '/dashboard/settings/tax', label: 'Tax' },
        { href: '/dashboard/settings/connected-apps', label: 'Connected apps' },
      ]}
    />
  );
}
