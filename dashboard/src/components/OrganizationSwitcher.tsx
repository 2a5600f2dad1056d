import { useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';
import { NAV, type NavKey } from '../routes.ts';
import { navigate } from '../router.tsx';
import { switchOrganization, useSession } from '../session.ts';

/**
 * The organization the person works in, and the others they belong to. Switching reloads the
 * page's data (pages are keyed by organization) and leaves a detail page for its list: an id of
 * one organization means nothing in another.
 */
export function OrganizationSwitcher({ nav }: { nav: NavKey }) {
  const session = useSession();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const current = session?.current_organization;
  if (!session || !current) return null;
  const all = [current, ...session.organizations].sort((a, b) => a.name.localeCompare(b.name));
  if (all.length === 1) {
    return (
      <div class="org-switcher">
        <span class="org-label">Organization</span>
        <span class="org-name">{current.name}</span>
      </div>
    );
  }
  return (
    <div class="org-switcher">
      <label class="org-label" for="org-switcher">
        Organization
      </label>
      <select
        id="org-switcher"
        class="input"
        value={current.id}
        disabled={busy}
        onChange={async (e) => {
          const id = (e.target as HTMLSelectElement).value;
          setBusy(true);
          setError(null);
          try {
            await switchOrganization(id);
            navigate(NAV.find((n) => n.key === nav)?.href ?? '/dashboard');
          } catch (err) {
            setError((err as ApiError).message);
          } finally {
            setBusy(false);
          }
        }}
      >
        {all.map((o) => (
          <option key={o.id} value={o.id}>
            {o.name}
          </option>
        ))}
      </select>
      {error && (
        <p class="field-error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
