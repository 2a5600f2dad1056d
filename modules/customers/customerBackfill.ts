import { fold } from '../../platform/domain/index.ts';
import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { checkoutSessionDecider, checkoutSessionStream, invoiceDecider, invoiceStream } from '../checkout/index.ts';
import { subscriptionDecider, subscriptionStream } from '../subscriptions/index.ts';
import { customerDecider, customerStream } from './domain/customer.ts';
import { ensureCustomer } from './customerCommands.ts';

type Completed = { invoice_id: string; completed_at: number; subscription_id?: string; customer_id?: string };

/**
 * Gives the purchases completed before customers existed their customer: for each completed
 * session whose completion names none, the customer of its buyer (as the paid invoice names them)
 * is made or found, and CustomerPurchaseLinked links the session, its invoice and the subscription
 * it made (with that subscription's invoices). Decided on streams; running it again links nothing
 * twice. A customer made here is dated by the purchase that made them. `contextOf` gives the
 * context of its commands in an organization.
 */
export async function backfillCustomers(
  store: EventStore,
  contextOf: (organizationId: string) => CommandContext,
  onProgress: (seen: number) => void = () => undefined,
): Promise<{ sessions: number; linked: number; customers: number }> {
  let after: number | null = null;
  let sessions = 0;
  let linked = 0;
  let customers = 0;
  for (;;) {
    const batch: RecordedEvent[] = await store.readAll({ after, limit: 1000, streamPrefixes: ['checkout_session-'] });
    if (batch.length === 0) break;
    after = batch[batch.length - 1]!.position;
    for (const event of batch) {
      if (event.type !== 'CheckoutSessionCompleted' || (event.data as Completed).customer_id) continue;
      sessions += 1;
      const done = await linkPurchase(store, contextOf, event);
      if (done.linked) linked += 1;
      if (done.created) customers += 1;
    }
    onProgress(sessions);
  }
  return { sessions, linked, customers };
}

async function linkPurchase(store: EventStore, contextOf: (organizationId: string) => CommandContext, event: RecordedEvent): Promise<{ linked: boolean; created: boolean }> {
  const completed = event.data as Completed;
  const sessionId = event.stream.slice('checkout_session-'.length);
  const session = fold(checkoutSessionDecider, (await store.readStream(checkoutSessionStream(sessionId))) as never);
  if (session.status === 'none') return { linked: false, created: false };
  const invoice = fold(invoiceDecider, (await store.readStream(invoiceStream(completed.invoice_id))) as never);
  const buyer = (invoice.status === 'none' ? null : invoice.invoice.customer) ?? session.customer;
  if (!buyer) return { linked: false, created: false };
  const ctx = contextOf(session.session.organization_id);
  const found = await ensureCustomer(ctx, {
    organizationId: session.session.organization_id,
    mode: session.session.mode,
    userId: buyer.user_id,
    email: buyer.email,
    name: buyer.name,
    createdAt: completed.completed_at,
  });
  if (!found) return { linked: false, created: false };
  let subscription: { id: string; status: string; invoiceIds: string[] } | null = null;
  if (completed.subscription_id) {
    const events = await store.readStream(subscriptionStream(completed.subscription_id));
    const state = fold(subscriptionDecider, events as never);
    if (state.status !== 'none') {
      const invoiceIds = events.filter((e) => e.type === 'SubscriptionInvoiceCreated').map((e) => (e.data as { invoice_id: string }).invoice_id);
      subscription = { id: completed.subscription_id, status: state.status, invoiceIds };
    }
  }
  const result = await handleCommand(ctx, customerStream(found.id), customerDecider, {
    type: 'LinkPurchase',
    sessionId,
    invoiceId: completed.invoice_id,
    completedAt: completed.completed_at,
    subscription,
    now: ctx.metadata.occurred_at,
  });
  return { linked: result.events.length > 0, created: found.created };
}
