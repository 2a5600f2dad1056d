import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function CatalogPage() {
  return <NotBuiltYet title="Catalog" what="Products with their plans and prices." />;
}
