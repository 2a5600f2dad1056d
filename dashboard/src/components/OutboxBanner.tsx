import type { z } from 'zod';
import type { OutboxSchema } from '../../../modules/receipts/index.ts';
import { Link } from '../router.tsx';
import { useSession } from '../session.ts';
import { useApi } from '../useApi.ts';
import { Notice } from './Notice.tsx';

type Outbox = z.infer<typeof OutboxSchema>;

/** Emails to buyers that wait with no way out (no SMTP server): how many, and the fix. */
export function OutboxBanner() {
  const outbox = useApi<Outbox>('/outbox');
  const owner = useSession()?.current_organization?.role === 'owner';
  const waiting = outbox.data?.waiting ?? 0;
  if (!outbox.data || waiting === 0 || outbox.data.way_out !== null) return null;
  return (
    <div data-testid="outbox-banner">
      <Notice tone="warning">
        <strong>
          {waiting === 1 ? '1 email is' : `${waiting} emails are`} waiting in the outbox
        </strong>
        : no SMTP server is set, so receipts and other emails to your buyers cannot be sent. Buyers still reach their receipt from the checkout’s thank-you page.
        <p>{owner ? <Link href="/dashboard/settings#email">Set up email in Settings</Link> : 'Ask an owner to set up email in Settings.'}</p>
      </Notice>
    </div>
  );
}
