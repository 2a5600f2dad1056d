import { type CommandContext, handleCommand } from '../../platform/es/index.ts';
import type { PersonalDataVault } from '../../platform/privacy/index.ts';
import type { ReadStore } from '../../platform/readStore/index.ts';
import { scrubCreditNoteBuyer } from '../creditNotes/index.ts';
import { scrubPromoParticipant } from '../promos/index.ts';
import { scrubBuyerFromOutbox } from '../receipts/index.ts';
import { customerAsCreated, redactCustomer, shredCustomer } from './customerCommands.ts';
import { checkoutSessionDecider, checkoutSessionStream, invoiceDecider, invoiceStream } from '../checkout/index.ts';
import { subscriptionDecider, subscriptionStream } from '../subscriptions/index.ts';
import { redactedEmail } from './domain/customer.ts';
import { CUSTOMER_LINKS, type LinkDoc } from './customerProjection.ts';

/**
 * Replaces the buyer's details on every checkout session, invoice and subscription linked to the
 * customer, so their read models and answers (and their webhooks from now on) show the
 * redacted placeholder. Reads the links from the read model, which must have applied the
 * customer's purchases (the caller waits for the head first). Running it again decides nothing.
 */
export async function redactLinkedObjects(ctx: CommandContext, readStore: ReadStore, customerId: string): Promise<{ sessions: number; invoices: number; subscriptions: number; invoiceIds: string[] }> {
  const customer = { email: redactedEmail(customerId), name: null, user_id: null };
  const links = await readStore.find<LinkDoc>(CUSTOMER_LINKS, { filter: { customer_id: customerId } });
  const invoices = new Set(links.filter((l) => l.kind === 'invoice').map((l) => l.object_id));
  let sessions = 0;
  for (const link of links.filter((l) => l.kind === 'session')) {
    const result = await handleCommand(ctx, checkoutSessionStream(link.object_id), checkoutSessionDecider, { type: 'RedactCustomer', customer, now: ctx.metadata.occurred_at });
    if (result.events.length > 0) sessions += 1;
    // The session's invoice, even one its payment did not link (a purchase recorded before customers).
    if (result.state.status !== 'none' && result.state.invoiceId) invoices.add(result.state.invoiceId);
  }
  let changed = 0;
  for (const id of invoices) {
    const result = await handleCommand(ctx, invoiceStream(id), invoiceDecider, { type: 'RedactInvoiceCustomer', customer, now: ctx.metadata.occurred_at });
    if (result.events.length > 0) changed += 1;
  }
  let subscriptions = 0;
  for (const link of links.filter((l) => l.kind === 'subscription')) {
    const result = await handleCommand(ctx, subscriptionStream(link.object_id), subscriptionDecider, { type: 'RedactCustomer', customer, now: ctx.metadata.occurred_at });
    if (result.events.length > 0) subscriptions += 1;
  }
  return { sessions, invoices: changed, subscriptions, invoiceIds: [...invoices] };
}

/**
 * The whole erasure (POST /api/customers/{id}/redact, docs/customers.md): the customer and the
 * objects linked to them are redacted by commands deciding on plain values, the read models that
 * copied their details are scrubbed, and only then are the keys sealing their fields in the log
 * destroyed. `catchUp` waits for the read models to reach the log's head. Running it again after
 * an interruption finishes the work: the details are read back from the log while the keys live.
 */
export async function eraseCustomer(
  ctx: CommandContext,
  services: { readStore: ReadStore; vault: PersonalDataVault },
  customerId: string,
  catchUp: () => Promise<unknown>,
): Promise<void> {
  const created = await customerAsCreated(ctx, customerId);
  await redactCustomer(ctx, customerId);
  // The links come from the read model: every purchase recorded so far must be in it.
  await catchUp();
  const linked = await redactLinkedObjects(ctx, services.readStore, customerId);
  await catchUp();
  if (created) {
    if (created.email) {
      const erased = { organizationId: created.organizationId, invoiceIds: linked.invoiceIds, email: created.email, name: created.name, placeholder: redactedEmail(customerId) };
      await scrubBuyerFromOutbox(services.readStore, erased);
      await scrubCreditNoteBuyer(services.readStore, erased);
      await scrubPromoParticipant(services.readStore, { ...erased, email: created.email });
    }
    await shredCustomer(services.vault, customerId, created);
  }
  await services.vault.purgeFreedPages();
}
