import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function OffersPage() {
  return <NotBuiltYet title="Offers" what="Checkout offers, their pages and a live preview." />;
}
