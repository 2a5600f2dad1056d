import { customAlphabet } from 'nanoid';
import { DomainError, fold, isWebhookUrl } from '../../platform/domain/index.ts';
import { isWebhookEventType, type WebhookEventType } from './domain/eventTypes.ts';
import { webhookEndpointDecider, webhookEndpointStream, type WebhookEndpointEvent, type WebhookEndpointState } from './domain/webhookEndpoint.ts';
import { webhookDeliveryDecider, webhookDeliveryStream, type WebhookDeliveriesSentEvent } from './domain/webhookDelivery.ts';
import { type CommandContext, handleCommand } from '../../platform/es/index.ts';
import { generateSigningSecret, type SecretBox } from '../../platform/lib/index.ts';

const endpointKey = customAlphabet('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 24);

/** What the API and the CLI show of an endpoint: never its secrets (those are shown once, on create and rotate). */
export type EndpointSummary = Pick<WebhookEndpointState, 'url' | 'event_types' | 'enabled' | 'disabled_reason' | 'created_at' | 'updated_at'> & { id: string };

export type EndpointInput = { url?: string | undefined; eventTypes?: readonly string[] | undefined; enabled?: boolean | undefined };

/** Default overlap after a rotation: the previous secret signs for another 24 hours, as Svix allows. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 24 * 3600;

const summary = ({ id, url, event_types, enabled, disabled_reason, created_at, updated_at }: WebhookEndpointState): EndpointSummary =>
  ({ id: id!, url, event_types, enabled, disabled_reason, created_at, updated_at });

function checkedUrl(url: string): string {
  if (url.length > 2048 || !isWebhookUrl(url)) {
    throw new DomainError('invalid', 'invalid_url', 'The url must be an http or https URL without credentials.', { url: ['The url must be an http or https URL without credentials.'] });
  }
  return url;
}

function checkedTypes(types: readonly string[]): WebhookEventType[] {
  const unknown = types.filter((t) => !isWebhookEventType(t));
  if (types.length === 0 || unknown.length > 0) {
    const message = types.length === 0 ? 'Name at least one event type.' : `Unknown event type: ${unknown.join(', ')}.`;
    throw new DomainError('invalid', 'invalid_event_types', message, { event_types: [message] });
  }
  return [...new Set(types as WebhookEventType[])];
}

export async function createWebhookEndpoint(
  ctx: CommandContext,
  box: SecretBox,
  input: { organizationId: string; url: string; eventTypes: readonly string[]; enabled?: boolean },
): Promise<EndpointSummary & { secret: string }> {
  const url = checkedUrl(input.url);
  const eventTypes = checkedTypes(input.eventTypes);
  const id = `we_${endpointKey()}`;
  const secret = generateSigningSecret();
  const result = await handleCommand(ctx, webhookEndpointStream(id), webhookEndpointDecider, {
    type: 'Create',
    id,
    organizationId: input.organizationId,
    url,
    eventTypes,
    enabled: input.enabled ?? true,
    sealedSecret: box.seal(secret),
    now: ctx.metadata.occurred_at,
  }, { known: [] });
  return { ...summary(result.state), secret };
}

export async function updateWebhookEndpoint(ctx: CommandContext, organizationId: string, id: string, input: EndpointInput): Promise<EndpointSummary> {
  const result = await handleCommand(ctx, webhookEndpointStream(id), webhookEndpointDecider, {
    type: 'Update',
    organizationId,
    ...(input.url !== undefined ? { url: checkedUrl(input.url) } : {}),
    ...(input.eventTypes !== undefined ? { eventTypes: checkedTypes(input.eventTypes) } : {}),
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    now: ctx.metadata.occurred_at,
  });
  return summary(result.state);
}

export async function rotateWebhookSecret(
  ctx: CommandContext,
  box: SecretBox,
  organizationId: string,
  id: string,
  overlapSeconds = DEFAULT_ROTATION_OVERLAP_SECONDS,
): Promise<EndpointSummary & { secret: string; previous_secret_expires_at: number }> {
  const secret = generateSigningSecret();
  const now = ctx.metadata.occurred_at;
  const result = await handleCommand(ctx, webhookEndpointStream(id), webhookEndpointDecider, {
    type: 'RotateSecret',
    organizationId,
    sealedSecret: box.seal(secret),
    overlapSeconds,
    now,
  });
  return { ...summary(result.state), secret, previous_secret_expires_at: now + overlapSeconds };
}

export async function deleteWebhookEndpoint(ctx: CommandContext, organizationId: string, id: string): Promise<{ id: string; deleted: true }> {
  await handleCommand(ctx, webhookEndpointStream(id), webhookEndpointDecider, { type: 'Delete', organizationId, now: ctx.metadata.occurred_at });
  return { id, deleted: true };
}

/** The endpoint as its stream says now (null when unknown or deleted): the dispatcher signs with this, never with a read model. */
export async function loadWebhookEndpoint(ctx: Pick<CommandContext, 'store'>, id: string): Promise<WebhookEndpointState | null> {
  const events = await ctx.store.readStream(webhookEndpointStream(id));
  const state = fold(webhookEndpointDecider, events as unknown as WebhookEndpointEvent[]);
  return state.id === null || state.deleted ? null : state;
}

/**
 * Sends a delivery again, once, with the same `webhook-id` and body. One recorded in a batch has
 * no stream of its own: `sentIn` (its batch's record) gives it one.
 */
export async function resendWebhookDelivery(ctx: CommandContext, organizationId: string, id: string, sentIn?: string | null): Promise<{ id: string; status: 'pending' }> {
  const stream = webhookDeliveryStream(id);
  const known = await ctx.store.readStream(stream);
  const sent = known.length === 0 && sentIn ? await sentDelivery(ctx, sentIn, id) : undefined;
  await handleCommand(ctx, stream, webhookDeliveryDecider, { type: 'Resend', organizationId, now: ctx.metadata.occurred_at, ...(sent ? { sent } : {}) }, { known });
  return { id, status: 'pending' };
}

async function sentDelivery(ctx: CommandContext, sentIn: string, id: string) {
  if (!sentIn.startsWith('webhook_sent-')) return undefined;
  const [event] = (await ctx.store.readStream(sentIn)) as unknown as WebhookDeliveriesSentEvent[];
  const delivery = event?.data.deliveries.find((d) => d.id === id);
  return event && delivery ? { endpointId: event.data.endpoint_id, organizationId: event.data.organization_id, delivery } : undefined;
}
