import { secretBox } from '../../platform/lib/secretBox.ts';
import {
  createWebhookEndpoint,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  deleteWebhookEndpoint,
  resendWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
  type EndpointSummary,
} from '../../modules/webhooks/webhookEndpointCommands.ts';
import { WEBHOOK_EVENT_TYPES } from '../../modules/webhooks/domain/eventTypes.ts';
import { attemptsByDelivery } from '../../modules/webhooks/attemptsByDelivery.ts';
import { notFound } from '../../platform/domain/domainError.ts';
import {
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
  type AttemptDoc,
  type DeliveryDoc,
  type EndpointDoc,
} from '../../modules/webhooks/webhookProjection.ts';
import { organizationOption } from './organizationOption.ts';
import { CliUsageError, isoSeconds as iso, listCommand, requireArg, requireOption, table, type CliCommand, type CliOptions } from '../command.ts';

/** `--events a,b`; `all` stands for every type there is now. */
function eventsOption(options: CliOptions): string[] | undefined {
  const raw = options.events;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || raw.trim() === '') throw new CliUsageError(`--events needs a comma-separated list of: ${WEBHOOK_EVENT_TYPES.join(', ')} (or all)`);
  if (raw.trim() === 'all') return [...WEBHOOK_EVENT_TYPES];
  return raw.split(',').map((t) => t.trim()).filter((t) => t !== '');
}

const idArg = (args: string[], what: string) => requireArg(args, `${what} needs an id`);

const describe = (e: EndpointSummary) =>
  `${e.id}  ${e.enabled ? 'enabled' : `disabled${e.disabled_reason === 'failing' ? ' (failing for 5 days)' : ''}`}  ${e.url}\n  events: ${e.event_types.join(', ')}`;

export const webhookEndpointCreateCommand: CliCommand = {
  path: ['webhook-endpoint', 'create'],
  usage: 'webhook-endpoint create --org ORG --url URL --events TYPE[,TYPE…]|all [--disabled]',
  description: 'Subscribe a URL to event webhooks. The signing secret (whsec_…) is printed once.',
  options: { org: 'string', url: 'string', events: 'string', disabled: 'boolean' },
  async run({ services, options, commandContext }) {
    const org = requireOption(options, 'org');
    const url = requireOption(options, 'url');
    const eventTypes = eventsOption(options);
    if (!eventTypes) throw new CliUsageError(`--events is required: a comma-separated list of ${WEBHOOK_EVENT_TYPES.join(', ')} (or all)`);
    return createWebhookEndpoint(commandContext(org), secretBox(services.secrets.jwt), { organizationId: org, url, eventTypes, enabled: options.disabled !== true });
  },
  format: (e: EndpointSummary & { secret: string }) =>
    `webhook endpoint created:\n${describe(e)}\n  signing secret (shown once; keep it with the receiver): ${e.secret}`,
};

export const webhookEndpointListCommand = listCommand(
  'webhook-endpoint',
  "List an organization's webhook endpoints (never their secrets); --org may be left out when there is one organization.",
  async (ctx) => {
    const org = await organizationOption(ctx, 'webhook-endpoint list');
    const docs = await ctx.services.readStore.find<EndpointDoc>(WEBHOOK_ENDPOINTS, { filter: { organization_id: org }, sort: [['created_at', 1]] });
    return docs.map((d) => ({
      id: d.id,
      url: d.url,
      event_types: d.event_types,
      enabled: d.enabled,
      disabled_reason: d.disabled_reason,
      failing_since: d.failing_since,
      created_at: d.created_at,
      updated_at: d.updated_at,
    }));
  },
  (rows) =>
    table(
      ['ID', 'STATUS', 'URL', 'EVENTS', 'FAILING SINCE'],
      rows.map((r) => [r.id, r.enabled ? 'enabled' : `disabled (${r.disabled_reason ?? 'manual'})`, r.url, r.event_types.join(','), iso(r.failing_since)]),
    ),
);

export const webhookEndpointUpdateCommand: CliCommand = {
  path: ['webhook-endpoint', 'update'],
  usage: 'webhook-endpoint update ID --org ORG [--url URL] [--events TYPE,…|all] [--enable | --disable]',
  description: 'Change an endpoint: its URL, its event types, or enable it (again) or disable it.',
  options: { org: 'string', url: 'string', events: 'string', enable: 'boolean', disable: 'boolean' },
  maxArgs: 1,
  async run({ options, args, commandContext }) {
    const org = requireOption(options, 'org');
    if (options.enable === true && options.disable === true) throw new CliUsageError('--enable and --disable exclude each other');
    const enabled = options.enable === true ? true : options.disable === true ? false : undefined;
    const url = typeof options.url === 'string' ? options.url : undefined;
    return updateWebhookEndpoint(commandContext(org), org, idArg(args, 'webhook-endpoint update'), { url, eventTypes: eventsOption(options), enabled });
  },
  format: (e: EndpointSummary) => `webhook endpoint updated:\n${describe(e)}`,
};

export const webhookEndpointRotateCommand: CliCommand = {
  path: ['webhook-endpoint', 'rotate-secret'],
  usage: 'webhook-endpoint rotate-secret ID --org ORG [--overlap SECONDS]',
  description: `New signing secret, printed once; the previous one keeps signing beside it for --overlap seconds (default ${DEFAULT_ROTATION_OVERLAP_SECONDS}).`,
  options: { org: 'string', overlap: 'string' },
  maxArgs: 1,
  async run({ services, options, args, commandContext }) {
    const org = requireOption(options, 'org');
    const raw = options.overlap;
    const overlap = typeof raw === 'string' ? Number(raw) : DEFAULT_ROTATION_OVERLAP_SECONDS;
    if (!/^\d+$/.test(String(raw ?? overlap)) || overlap > 7 * 86_400) throw new CliUsageError('--overlap takes whole seconds, at most 604800 (7 days)');
    return rotateWebhookSecret(commandContext(org), secretBox(services.secrets.jwt), org, idArg(args, 'webhook-endpoint rotate-secret'), overlap);
  },
  format: (e: EndpointSummary & { secret: string; previous_secret_expires_at: number }) =>
    `signing secret rotated for ${e.id}; the previous one signs too until ${iso(e.previous_secret_expires_at)}\n  new signing secret (shown once): ${e.secret}`,
};

export const webhookEndpointDeleteCommand: CliCommand = {
  path: ['webhook-endpoint', 'delete'],
  usage: 'webhook-endpoint delete ID --org ORG',
  description: 'Delete an endpoint: nothing more is sent to it, pending deliveries included.',
  options: { org: 'string' },
  maxArgs: 1,
  async run({ options, args, commandContext }) {
    const org = requireOption(options, 'org');
    return deleteWebhookEndpoint(commandContext(org), org, idArg(args, 'webhook-endpoint delete'));
  },
  format: (r: { id: string }) => `webhook endpoint ${r.id} deleted`,
};

type DeliveryRow = Omit<DeliveryDoc, 'position' | 'resource' | 'sent_in'> & { attempt_log: Array<Omit<AttemptDoc, 'id' | 'delivery_id' | 'endpoint_id' | 'organization_id' | 'event_id'>> };

export const webhookEndpointDeliveriesCommand: CliCommand = {
  path: ['webhook-endpoint', 'deliveries'],
  usage: 'webhook-endpoint deliveries ID --org ORG [--status pending|succeeded|failed] [--limit N]',
  description: "An endpoint's deliveries, newest first, each with every attempt (status, duration, response excerpt).",
  options: { org: 'string', status: 'string', limit: 'string' },
  maxArgs: 1,
  async run({ services, options, args, catchUp }) {
    const org = requireOption(options, 'org');
    const endpointId = idArg(args, 'webhook-endpoint deliveries');
    const status = options.status;
    if (status !== undefined && status !== 'pending' && status !== 'succeeded' && status !== 'failed') throw new CliUsageError('--status is one of pending, succeeded, failed');
    const limit = typeof options.limit === 'string' ? Number(options.limit) : 50;
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 1000) throw new CliUsageError('--limit takes a whole number from 1 to 1000');
    await catchUp();
    const endpoint = await services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, endpointId);
    if (!endpoint || endpoint.organization_id !== org) throw notFound('Webhook endpoint', 'webhook_endpoint_not_found');
    const deliveries = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
      filter: { endpoint_id: endpointId, ...(status ? { status } : {}) },
      sort: [['created_at', -1]],
      limit,
    });
    const attemptsOf = await attemptsByDelivery(services.readStore, deliveries.map((d) => d.id));
    return deliveries.map(({ position: _p, resource: _r, sent_in: _s, ...d }): DeliveryRow => ({
      ...d,
      attempt_log: (attemptsOf.get(d.id) ?? []).map(({ id: _i, delivery_id: _d, endpoint_id: _e, organization_id: _o, event_id: _v, ...a }) => a),
    }));
  },
  format: (rows: DeliveryRow[]) =>
    rows.length === 0
      ? '(none)'
      : rows
          .map((d) =>
            [
              `${d.id}  ${d.event_type}  ${d.status}  attempts ${d.attempts}${d.next_attempt_at !== null && d.status === 'pending' ? `  next ${iso(d.next_attempt_at)}` : ''}`,
              ...d.attempt_log.map(
                (a) =>
                  `  #${a.attempt} ${iso(a.attempted_at)}  ${a.success ? 'ok' : 'failed'}  ${a.status_code || a.error}  ${a.duration_ms} ms${a.manual ? '  (resent)' : ''}  ${JSON.stringify(a.response_excerpt.slice(0, 80))}`,
              ),
            ].join('\n'),
          )
          .join('\n'),
};

export const webhookEndpointResendCommand: CliCommand = {
  path: ['webhook-endpoint', 'resend'],
  usage: 'webhook-endpoint resend DELIVERY_ID --org ORG',
  description: 'Send a delivery again, once, with the same webhook-id and body (the running service sends it).',
  options: { org: 'string' },
  maxArgs: 1,
  async run({ services, options, args, commandContext }) {
    const org = requireOption(options, 'org');
    const id = idArg(args, 'webhook-endpoint resend');
    const sentIn = (await services.readStore.get<DeliveryDoc>(WEBHOOK_DELIVERIES, id))?.sent_in;
    return resendWebhookDelivery(commandContext(org), org, id, sentIn);
  },
  format: (r: { id: string }) => `delivery ${r.id} queued to be sent again`,
};

export const webhookCommands: CliCommand[] = [
  webhookEndpointCreateCommand,
  webhookEndpointListCommand,
  webhookEndpointUpdateCommand,
  webhookEndpointRotateCommand,
  webhookEndpointDeleteCommand,
  webhookEndpointDeliveriesCommand,
  webhookEndpointResendCommand,
];
