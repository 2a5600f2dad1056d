import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function SalesPage() {
  return <NotBuiltYet title="Sales" what="Checkout sessions, their invoices and their history." />;
}
