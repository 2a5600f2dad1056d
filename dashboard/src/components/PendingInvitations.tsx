import type { z } from 'zod';
import type { PendingInvitationSchema } from '../../../modules/identity/index.ts';
import { api } from '../api.ts';
import { formatDateTime } from '../format.ts';
import { useAction } from '../useAction.ts';
import { useApi } from '../useApi.ts';
import { Button } from './Button.tsx';
import { Card } from './Card.tsx';
import { ErrorNotice } from './Notice.tsx';

type PendingInvitation = z.infer<typeof PendingInvitationSchema>;

/**
 * The signed-in person's invitations elsewhere, to decline here; they join by opening the link
 * (it proves the invitation reached them). Nothing shows when there are none.
 */
export function PendingInvitations() {
  const pending = useApi<{ data: PendingInvitation[] }>('/invitations');
  const { busy, error, run } = useAction<string>();
  if (!pending.data?.data.length && !pending.error) return null;

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
              <span class="muted">Until {formatDateTime(invitation.expires_at)}.</span> To join, open the invitation link they sent you.
            </p>
            <div class="invitation-actions">
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
