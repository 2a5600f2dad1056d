import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function DevelopersPage() {
  return <NotBuiltYet title="Developers" what="API keys and the organization's event log." />;
}
