import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function PromosPage() {
  return <NotBuiltYet title="Promos" what="Promotions, their tiers, countdown and participants." />;
}
