import { NotBuiltYet } from '../components/NotBuiltYet.tsx';

export function HomePage() {
  return <NotBuiltYet title="Home" what="Sales today and over the last 30 days, sessions, failing workflows and the latest sales." />;
}
