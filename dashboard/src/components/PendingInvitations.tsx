import { api } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { navigate } from '../router.tsx';
import { setSession, type SessionAnswer } from '../session.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { Button } from './Button.tsx';
import { Card } from './Card.tsx';
import { ErrorNotice } from './Notice.tsx';

type PendingInvitation = { id: string; organization: { id: string; name: string }; role: 'owner' | 'member'; invited_at: number; expires_at: number };

/**
 * The signed-in person's invitations to other organizations: they join one only by accepting it
 * here (or from its link), as themselves. Nothing shows when there are none.
 */
export function PendingInvitations() {
  const pending = useApi<{ data: PendingInvitation[] }>('/invitations');
  const { busy, error, run } = useAction<string>();
  if (!pending.data?.data.length && !pending.error) return null;

  const accept = (invitation: PendingInvitation) =>
    run(
      `accept:${invitation.id}`,
      async () => {
        setSession(await api.post<SessionAnswer>(`/invitations/${encodeURIComponent(invitation.id)}/accept`, {}));
        navigate('/dashboard');
      },
      { keepBusy: true },
    );
  const decline = (invitation: PendingInvitation) =>
    run(`decline:${invitation.id}`, async () => {
      await api.post(`/invitations/${encodeURIComponent(invitation.id)}/decline`, {});
      pending.reload();
    });

  return (
    <Card title="Invitations" id="invitations">
      <ErrorNotice error={pending.error ?? error} />
      <ul class="invitation-list">
        {pending.data?.data.map((invitation) => (
          <li key={invitation.id} class="invitation-item">
            <p>
              <strong>{invitation.organization.name}</strong> invited you to join as {invitation.role === 'owner' ? 'an owner' : 'a member'}.{' '}
              <span class="muted">Until {formatDateTime(invitation.expires_at)}.</span>
            </p>
            <div class="invitation-actions">
              <Button variant="primary" size="sm" busy={busy === `accept:${invitation.id}`} disabled={busy !== null} onClick={() => accept(invitation)}>
                Accept
              </Button>
              <Button size="sm" busy={busy === `decline:${invitation.id}`} disabled={busy !== null} onClick={() => decline(invitation)}>
                Decline
              </Button>
            </div>
          </li>
        ))}
      </ul>
    </Card>
  );
}
