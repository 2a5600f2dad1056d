import { useState } from 'preact/hooks';
import { NAV, type NavKey } from '../routes.ts';
import { navigate } from '../router.tsx';
import { switchOrganization, useSession } from '../session.ts';
import { useAction } from '../useAction.ts';

/**
 * The organization the person works in, and their others. Switching leaves a detail page for its
 * list: an id of one organization means nothing in another.
 */
export function OrganizationSwitcher({ nav }: { nav: NavKey }) {
  const session = useSession();
  const { busy, error, run } = useAction<'switch'>();
  // The choice stays shown while the switch is under way, not the organization being left.
  const [pending, setPending] = useState<string | null>(null);
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
        value={pending ?? current.id}
        disabled={busy === 'switch'}
        onChange={async (e) => {
          const id = (e.target as HTMLSelectElement).value;
          setPending(id);
          await run('switch', async () => {
            await switchOrganization(id);
            navigate(NAV.find((n) => n.key === nav)?.href ?? '/dashboard');
          });
          setPending(null);
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
          {error.message}
        </p>
      )}
    </div>
  );
}
