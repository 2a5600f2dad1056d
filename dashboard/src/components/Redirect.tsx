import { useEffect } from 'preact/hooks';
import { navigate } from '../router.tsx';

export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
