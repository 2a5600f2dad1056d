import { nanoid } from 'nanoid';
import type { RecordedEvent } from '../../../platform/eventStore/index.ts';
import { handleCommand, type Logger, followFromCheckpoint } from '../../../platform/es/index.ts';
import { type CardSummary, checkoutSessionStream, invoiceDecider, type InvoiceEvent } from '../../checkout/index.ts';
import { addressLines, organizationDecider, organizationStream, type OrganizationEvent } from '../../identity/index.ts';
import { receiptDecider, receiptStream, retryDelaySeconds, type ReceiptEvent, type ReceiptSnapshot } from '../domain/receipt.ts';
import { receiptEmail, type ReceiptBenefits } from '../domain/receiptMessage.ts';
import { purchaseBenefits } from '../../delivery/index.ts';
import { fold } from '../../../platform/domain/index.ts';
import { NOTICES, RECEIPTS } from '../receiptProjection.ts';
import type { Config, BackgroundJob, Services } from '../../../platform/runtime/index.ts';
import { dueMail, outboxContext, publicBaseUrl, queueEndpointDisabledNotices, sendNotice } from './noticeOutbox.ts';
import { outletOf, outlets, type MailerChoice } from './outlets.ts';
import { queueRefundEmail } from './buyerEmails.ts';

export const RECEIPT_CHECKPOINT = 'receipt_outbox';
/**
 * How long a receipt waits for the purchase's grants (and keys) to be made, so the email can carry
 * the keys; after that it leaves saying they are on the receipt page.
 */
export const RECEIPT_BENEFITS_WAIT_SECONDS = 120;
const BATCH_EVENTS = 200;
const SEND_BATCH = 50;

/** The receipt page's absolute URL. */
export function receiptUrl(config: Config, token: string): string {
  return `${publicBaseUrl(config)}/receipts/${token}`;
}

const context = (services: Services, organizationId: string, invoiceId: string) => outboxContext(services, organizationId, `receipt_${invoiceId}`, 'receipts');

/**
 * What the receipt of a paid invoice shows, read from the invoice's and the organization's
 * streams (the log, not read models: the subscriber may run ahead of the projections). Null when
 * there is no one to send it to (no buyer email).
 */
async function snapshotOf(services: Services, invoiceId: string, paid: { card: CardSummary; paid_at: number }): Promise<ReceiptSnapshot | null> {
  const invoice = fold(invoiceDecider, (await services.store.readStream(`invoice-${invoiceId}`)) as unknown as InvoiceEvent[]);
  if (invoice.status !== 'paid') return null;
  const { number, organization_id, lines, total, currency, customer } = invoice.invoice;
  if (!customer?.email) return null;
  const organization = fold(
    organizationDecider,
    (await services.store.readStream(organizationStream(organization_id))) as unknown as OrganizationEvent[],
  );
  const subscriptionId = invoice.invoice.subscription_id ?? (await subscriptionOfSession(services, invoice.invoice.session_id));
  return {
    ...(invoice.invoice.period ? { period: invoice.invoice.period } : {}),
    ...(subscriptionId ? { subscription_id: subscriptionId } : {}),
    ...(invoice.invoice.pricing ? { pricing: invoice.invoice.pricing } : {}),
    invoice_id: invoiceId,
    invoice_number: number,
    organization_id,
    organization_name: organization.status === 'active' ? organization.name : '',
    organization_address: organization.status === 'active' ? addressLines(organization.address) : [],
    organization_vat_number: organization.status === 'active' ? organization.vat_number : null,
    organization_logo: organization.status === 'active' && organization.logo ? { sha256: organization.logo.sha256, content_type: organization.logo.content_type } : null,
    organization_brand_color: organization.status === 'active' ? organization.brand_color : null,
    lines,
    total,
    currency,
    buyer_email: customer.email,
    buyer_name: customer.name,
    card: paid.card,
    paid_at: paid.paid_at,
  };
}

/** The subscription a checkout of a recurring plan started (its completion names it), if any. */
async function subscriptionOfSession(services: Services, sessionId: string | null): Promise<string | null> {
  if (!sessionId) return null;
  const completed = (await services.store.readStream(checkoutSessionStream(sessionId))).find((e) => e.type === 'CheckoutSessionCompleted');
  return (completed?.data as { subscription_id?: string } | undefined)?.subscription_id ?? null;
}

/** Queues the receipt of the invoice an InvoicePaid event paid; a second time queues nothing. */
export async function queueReceipt(services: Services, paid: RecordedEvent, logger?: Logger): Promise<boolean> {
  const invoiceId = paid.stream.slice('invoice-'.length);
  const snapshot = await snapshotOf(services, invoiceId, paid.data as { card: CardSummary; paid_at: number });
  if (!snapshot) {
    logger?.info({ invoice: invoiceId }, 'paid invoice has no buyer email: no receipt');
    return false;
  }
  // 192 random bits: the receipt page's URL is its only key.
  const token = nanoid(32);
  const ctx = context(services, snapshot.organization_id, invoiceId);
  const result = await handleCommand(ctx, receiptStream(invoiceId), receiptDecider, {
    type: 'QueueReceipt',
    receipt: snapshot,
    token,
    now: ctx.metadata.occurred_at,
  });
  return result.events.length > 0;
}

/**
 * Sends one queued receipt and records the outcome on its stream. The stream is read first, so a
 * receipt recorded as sent is never sent again (the Message-ID is the invoice's, too, so a send
 * whose record was lost to a crash reaches the buyer's mailbox as the same message).
 */
export async function sendReceipt(services: Services, mailer: MailerChoice, invoiceId: string, logger?: Logger): Promise<'sent' | 'failed' | 'skipped'> {
  const stream = receiptStream(invoiceId);
  const recorded = await services.store.readStream(stream);
  const state = fold(receiptDecider, recorded as unknown as ReceiptEvent[]);
  if (state.status !== 'queued') return 'skipped';
  // No way out for this organization (no SMTP server of its own, none of the operator's): it waits.
  const outlet = await outletOf(services, mailer, state.receipt.organization_id);
  if (!outlet) return 'skipped';
  const ctx = context(services, state.receipt.organization_id, invoiceId);
  const benefits = await benefitsOfReceipt(services, state.receipt.organization_id, invoiceId);
  const queuedAt = (recorded[0]?.data as { queued_at?: number } | undefined)?.queued_at ?? 0;
  // Grants are made a moment after the sale: the next poll looks again, up to the wait.
  if (benefits?.pending && ctx.metadata.occurred_at < queuedAt + RECEIPT_BENEFITS_WAIT_SECONDS) return 'skipped';
  const email = receiptEmail(state.receipt, receiptUrl(services.config, state.token), publicBaseUrl(services.config), benefits);
  const messageId = `<receipt-${invoiceId}@commerce.invalid>`;
  try {
    await outlet.mailer.send({ from: outlet.from, to: state.receipt.buyer_email, messageId, ...email });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const retryInSeconds = retryDelaySeconds(state.attempts + 1, services.config.RECEIPT_RETRY_BASE_SECONDS);
    logger?.error({ invoice: invoiceId, attempt: state.attempts + 1, err: message }, `receipt not sent; retrying in ${retryInSeconds}s`);
    await handleCommand(ctx, stream, receiptDecider, { type: 'RecordSendFailure', error: message, retryInSeconds, now: ctx.metadata.occurred_at }, { known: recorded });
    return 'failed';
  }
  await handleCommand(ctx, stream, receiptDecider, { type: 'RecordSent', messageId, now: ctx.metadata.occurred_at }, { known: recorded });
  return 'sent';
}

/** What the paid invoice delivered, as the email names it; null when it delivered nothing. */
async function benefitsOfReceipt(services: Services, organizationId: string, invoiceId: string): Promise<ReceiptBenefits | null> {
  const { pending, benefits } = await purchaseBenefits(services, organizationId, invoiceId);
  if (!pending && benefits.length === 0) return null;
  return {
    pending,
    keys: benefits.flatMap((b) => (b.license_key ? [{ description: b.description, key: b.license_key.key }] : [])),
    files: benefits.flatMap((b) => (b.files.length ? [{ description: b.description, filenames: b.files.map((f) => f.filename) }] : [])),
  };
}

/**
 * The receipt outbox: a subscriber of the log queues a receipt (ReceiptQueued on
 * `receipt-<invoice>`) for every InvoicePaid, then moves its checkpoint; a sender sends the
 * queued ones at once and, every RECEIPT_POLL_INTERVAL_MS, those due for a retry (or queued while
 * no SMTP server was configured, or by a process that stopped). Each organization's mail goes
 * through its own SMTP server (Settings) or else the operator's SMTP_URL; with neither, it only
 * queues: Home says so, and `commerce outbox list` shows it.
 */
export const receiptOutboxJob: BackgroundJob = {
  name: 'receipt-outbox',
  async start(services: Services, logger: Logger) {
    const ways = outlets(services);
    const mailer: MailerChoice = (organizationId) => ways.of(organizationId);
    let stopped = false;
    // One send per receipt at a time in this process (the job's lease keeps other processes out).
    const inFlight = new Map<string, Promise<unknown>>();

    const track = (slot: string, sending: () => Promise<unknown>, onError: (error: unknown) => void) => {
      if (stopped || inFlight.has(slot)) return;
      inFlight.set(slot, sending().catch(onError).finally(() => inFlight.delete(slot)));
    };
    const send = (invoiceId: string) =>
      track(invoiceId, () => sendReceipt(services, mailer, invoiceId, logger), (error) => logger.error({ err: error, invoice: invoiceId }, 'receipt outbox: could not record a send'));
    // Notices (to the organization's people) go out the same way, keyed apart from invoices.
    const sendOneNotice = (key: string) =>
      track(`notice:${key}`, () => sendNotice(services, mailer, key, logger), (error) => logger.error({ err: error, notice: key }, 'outbox: could not record a notice send'));

    let polling: Promise<void> | null = null;
    const poll = () => {
      if (polling || stopped) return;
      polling = (async () => {
        try {
          const reachable = await ways.reachable();
          if (reachable?.length === 0) return;
          for (const doc of await dueMail(services, RECEIPTS, SEND_BATCH, reachable)) send(doc.id);
          for (const doc of await dueMail(services, NOTICES, SEND_BATCH, reachable)) sendOneNotice(doc.id);
        } catch (error) {
          logger.error({ err: error }, 'receipt outbox: could not read the due receipts; trying again at the next tick');
        } finally {
          polling = null;
        }
      })();
    };
    const following = await followFromCheckpoint(services, logger, {
      checkpoint: RECEIPT_CHECKPOINT,
      // Endpoints too: an endpoint disabled for failing tells the organization's owners.
      streamPrefixes: ['invoice-', 'webhook_endpoint-'],
      batchSize: BATCH_EVENTS,
      async handle(events) {
        const queued: string[] = [];
        const notices: string[] = [];
        for (const event of events) {
          if (event.type === 'InvoicePaid' && (await queueReceipt(services, event, logger))) queued.push(event.stream.slice('invoice-'.length));
          if (event.type === 'WebhookEndpointDisabled') notices.push(...(await queueEndpointDisabledNotices(services, event)));
          if (event.type === 'InvoiceRefunded') {
            const key = await queueRefundEmail(services, event, (token) => receiptUrl(services.config, token));
            if (key) notices.push(key);
          }
        }
        return () => {
          queued.forEach(send);
          notices.forEach(sendOneNotice);
        };
      },
      remedy: `restore the read store that goes with this log, or delete the checkpoint ${RECEIPT_CHECKPOINT} to look at every paid or refunded invoice and disabled endpoint again (a receipt is queued once per invoice, a notice once per recipient and cause)`,
      failure: 'receipt outbox failed; retrying from its checkpoint',
    }).catch((error: unknown) => {
      ways.close();
      throw error;
    });
    const timer = setInterval(poll, services.config.RECEIPT_POLL_INTERVAL_MS);
    timer.unref();
    poll();

    return {
      async stop() {
        stopped = true;
        clearInterval(timer);
        await following.stop();
        await polling;
        await Promise.all(inFlight.values());
        ways.close();
      },
    };
  },
};
