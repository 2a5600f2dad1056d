import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function SettingsPage() {
  return <NotBuiltYet title="Settings" what="The organization, its members, your sessions and passkeys." />;
}
