import type { EventMetadata, RecordedEvent } from '../../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext, type Logger } from '../../../platform/es/index.ts';
import { organizationDecider, organizationStream, type OrganizationEvent, MEMBERS, type MemberDoc } from '../../identity/index.ts';
import { endpointDisabledText, NOTICE_LINK_SLOT, noticeDecider, noticeStream, type Notice, type NoticeEvent } from '../domain/notice.ts';
import { billingLinkPath, issueBillingLink } from '../../subscriptions/index.ts';
import { retryDelaySeconds } from '../domain/receipt.ts';
import { fold } from '../../../platform/domain/index.ts';
import { webhookEndpointDecider, type WebhookEndpointEvent } from '../../webhooks/index.ts';
import type { NOTICES, RECEIPTS } from '../receiptProjection.ts';
import type { Services, Config } from '../../../platform/runtime/index.ts';
import { outletOf, type MailerChoice } from './outlets.ts';
import { outboxBox } from '../outboxSeal.ts';
import { framedEmail, textToHtml } from '../domain/seller.ts';
import { loadSeller } from '../sellerHeader.ts';
import { escapeHtml } from '../../../platform/http/index.ts';

/** Where emailed links point: BASE_URL when set, else the address the service listens on. */
export const publicBaseUrl = (config: Config): string =>
  config.BASE_URL ?? `http://${config.HOST.includes(':') ? `[${config.HOST}]` : config.HOST}:${config.PORT}`;

/** A command of the outbox, correlated with the mail it is about (`notice_<key>`, `receipt_<invoice>`). */
export function outboxContext(services: Services, organizationId: string, correlationId: string, actor = 'outbox'): CommandContext {
  const metadata: EventMetadata = {
    correlation_id: correlationId,
    actor: { type: 'system', name: actor },
    organization_id: organizationId,
    occurred_at: Math.floor(services.clock() / 1000),
  };
  return { store: services.store, metadata };
}

const context = (services: Services, organizationId: string, key: string) => outboxContext(services, organizationId, `notice_${key}`);

/**
 * Tells each owner of the organization that an endpoint was disabled for failing five days: one
 * notice per (disable event, owner), so the event handled again queues nothing more. Returns the
 * keys of the notices queued now.
 */
export async function queueEndpointDisabledNotices(services: Services, disabled: RecordedEvent): Promise<string[]> {
  if (disabled.type !== 'WebhookEndpointDisabled' || (disabled.data as { reason: string }).reason !== 'failing') return [];
  const endpoint = fold(webhookEndpointDecider, (await services.store.readStream(disabled.stream)) as unknown as WebhookEndpointEvent[]);
  if (endpoint.id === null || endpoint.organization_id === null) return [];
  const organizationId = endpoint.organization_id;
  const organization = fold(organizationDecider, (await services.store.readStream(organizationStream(organizationId))) as unknown as OrganizationEvent[]);
  // People are known from the read model; it has long applied an organization's owners.
  const owners = await services.readStore.find<MemberDoc>(MEMBERS, { filter: { organization_id: organizationId, role: 'owner' } });
  const { failing_since, disabled_at } = disabled.data as { failing_since: number | null; disabled_at: number };
  const message = endpointDisabledText({
    organizationName: organization.status === 'active' ? organization.name : '',
    endpointId: endpoint.id,
    url: endpoint.url,
    failingSince: failing_since,
    disabledAt: disabled_at,
  });
  const queued: string[] = [];
  for (const owner of owners) {
    const key = `endpoint_disabled-${disabled.id}-${owner.user_id}`;
    const ctx = context(services, organizationId, key);
    const result = await handleCommand(ctx, noticeStream(key), noticeDecider, {
      type: 'QueueNotice',
      notice: { kind: 'webhook_endpoint_disabled', organization_id: organizationId, user_id: owner.user_id, to: owner.email, ...message, about: endpoint.id },
      now: ctx.metadata.occurred_at,
    });
    if (result.events.length > 0) queued.push(key);
  }
  return queued;
}

/**
 * Queues a notice under its key (named after its cause, so a cause handled twice queues it once);
 * the outbox sends it at its next poll. True when queued now.
 */
export async function queueNotice(services: Services, key: string, notice: Notice): Promise<boolean> {
  const ctx = context(services, notice.organization_id, key);
  const result = await handleCommand(ctx, noticeStream(key), noticeDecider, { type: 'QueueNotice', notice, now: ctx.metadata.occurred_at });
  return result.events.length > 0;
}

/**
 * The notice's text and HTML as sent: opened when sealed, with its secret link made now if it has
 * one, and a buyer's framed by the seller's logo, name, address and VAT number.
 */
async function partsToSend(services: Services, key: string, notice: Notice): Promise<{ text: string; html?: string }> {
  const box = notice.sealed ? outboxBox(services) : null;
  let text = box ? box.open(notice.text) : notice.text;
  let html = notice.html === undefined ? undefined : box ? box.open(notice.html) : notice.html;
  if (notice.link) {
    const { subscription_id, invoice_id } = notice.link;
    const token = await issueBillingLink(services, { subscription_id, invoice_id, organization_id: notice.organization_id }, `notice_${key}`);
    const url = `${publicBaseUrl(services.config)}${billingLinkPath(token)}`;
    text = text.replaceAll(NOTICE_LINK_SLOT, url);
    html = html?.replaceAll(escapeHtml(NOTICE_LINK_SLOT), `<a href="${escapeHtml(url)}">${escapeHtml(url)}</a>`);
  }
  if (notice.user_id !== null && notice.kind === 'webhook_endpoint_disabled') return { text, ...(html ? { html } : {}) };
  const seller = await loadSeller(services, notice.organization_id);
  const body = { text, html: html ?? textToHtml(text) };
  return seller ? framedEmail(seller, publicBaseUrl(services.config), body) : body;
}

/** Sends one queued notice and records the outcome; one recorded as sent is never sent again. */
export async function sendNotice(services: Services, mailer: MailerChoice, key: string, logger?: Logger): Promise<'sent' | 'failed' | 'skipped'> {
  const stream = noticeStream(key);
  const recorded = await services.store.readStream(stream);
  const state = fold(noticeDecider, recorded as unknown as NoticeEvent[]);
  if (state.status !== 'queued') return 'skipped';
  const outlet = await outletOf(services, mailer, state.notice.organization_id);
  if (!outlet) return 'skipped';
  const ctx = context(services, state.notice.organization_id, key);
  const messageId = `<notice-${key}@commerce.invalid>`;
  const { to, subject } = state.notice;
  try {
    const parts = await partsToSend(services, key, state.notice);
    await outlet.mailer.send({ from: outlet.from, to, messageId, subject, ...parts });
  } catch (error) {
    const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
    const retryInSeconds = retryDelaySeconds(state.attempts + 1, services.config.RECEIPT_RETRY_BASE_SECONDS);
    logger?.error({ notice: key, attempt: state.attempts + 1, err: message }, `notice not sent; retrying in ${retryInSeconds}s`);
    await handleCommand(ctx, stream, noticeDecider, { type: 'RecordNoticeFailure', error: message, retryInSeconds, now: ctx.metadata.occurred_at }, { known: recorded });
    return 'failed';
  }
  await handleCommand(ctx, stream, noticeDecider, { type: 'RecordNoticeSent', messageId, now: ctx.metadata.occurred_at }, { known: recorded });
  return 'sent';
}

/**
 * Receipts or notices due for a (first or further) attempt, oldest due first; only those of
 * `organizations` (the ones that can leave) when given, so others do not hold the rest back.
 */
export function dueMail(services: Services, collection: typeof RECEIPTS | typeof NOTICES, limit: number, organizations: string[] | null): Promise<Array<{ id: string }>> {
  const now = Math.floor(services.clock() / 1000);
  const filter = { status: 'queued', next_attempt_at: { $lte: now }, ...(organizations ? { organization_id: { $in: organizations } } : {}) };
  return services.readStore.find(collection, { filter, sort: [['next_attempt_at', 1]], limit });
}
