import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function AutomationPage() {
  return <NotBuiltYet title="Automation" what="Sequences, triggers and workflows." />;
}
