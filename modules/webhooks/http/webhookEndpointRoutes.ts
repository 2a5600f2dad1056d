import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { secretBox } from '../../../platform/lib/index.ts';
import {
  createWebhookEndpoint,
  DEFAULT_ROTATION_OVERLAP_SECONDS,
  deleteWebhookEndpoint,
  resendWebhookDelivery,
  rotateWebhookSecret,
  updateWebhookEndpoint,
} from '../webhookEndpointCommands.ts';
import { WEBHOOK_EVENT_TYPES } from '../domain/eventTypes.ts';
import { attemptsByDelivery } from '../attemptsByDelivery.ts';
import {
  WEBHOOK_DELIVERIES,
  WEBHOOK_ENDPOINTS,
  type DeliveryDoc,
  type EndpointDoc,
} from '../webhookProjection.ts';
import type { FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import type { CommandContext } from '../../../platform/es/index.ts';
import { commandContext, decimalInteger, ErrorSchema, findOrAwaitStream, manageContext, manageErrors, manageRoute, notFound, protectedRoute, readModelsAtHead, RouteKey } from '../../../platform/http/index.ts';
import { requireOwner } from '../../identity/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { webhookEndpointStream } from '../domain/webhookEndpoint.ts';
import { Delivery, Endpoint } from './endpointSchemas.ts';

const EventTypes = z.array(z.enum(WEBHOOK_EVENT_TYPES)).min(1).max(WEBHOOK_EVENT_TYPES.length);
const Url = z.string().min(1).max(2048).describe('An http or https URL; private addresses are refused when sent to, unless allowed (WEBHOOK_ALLOW_HOSTS).');

const WithSecret = Endpoint.extend({ secret: z.string().describe('The signing secret (whsec_…): shown here once, never again.') });

const Params = z.object({ id: RouteKey });

/** How the routes are reached: by API key, or by session cookie (owners only: a secret is shown). */
type Access = {
  prefix: string;
  onRequest: (app: Parameters<FastifyPluginAsyncZod>[0]) => onRequestHookHandler;
  schema: Record<string, unknown>;
  errors: Record<number, typeof ErrorSchema>;
  organizationOf(request: FastifyRequest): string;
  context(services: Services, request: FastifyRequest): CommandContext;
};

const bearer: Access = {
  prefix: '/api',
  onRequest: (app) => app.authenticate,
  schema: protectedRoute,
  errors: { 401: ErrorSchema, 404: ErrorSchema, 422: ErrorSchema },
  organizationOf: (request) => requireAuth(request).organizationId,
  context: commandContext,
};

const manage: Access = {
  prefix: '/manage/api',
  onRequest: (app) => app.authenticateOwner,
  schema: manageRoute,
  errors: manageErrors,
  organizationOf: (request) => requireOwner(request).organizationId,
  context: manageContext,
};

/** Event webhook endpoints of the caller's organization (bearer API key), as the CLI manages them. */
export const webhookEndpointRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => endpointRoutes(app, services, bearer);

/** The same, through the management API (session cookie, CSRF token; owners only). */
export const webhookEndpointManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => endpointRoutes(app, services, manage);

async function endpointRoutes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: Access): Promise<void> {
  const { prefix, schema: routeSchema, errors } = access;
  const authenticate = access.onRequest(app);
  const box = secretBox(services.secrets.jwt);
  const own = async (organizationId: string, id: string, reply: FastifyReply) => {
    const doc = await findOrAwaitStream(services, reply, {
      stream: webhookEndpointStream(id),
      find: () => services.readStore.get<EndpointDoc>(WEBHOOK_ENDPOINTS, id),
      organizationId,
    });
    if (!doc || doc.organization_id !== organizationId) throw notFound('Webhook endpoint');
    return doc;
  };

  app.get(
    `${prefix}/webhook-endpoints`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: "The organization's event webhook endpoints (never their secrets).", response: { 200: z.object({ data: z.array(Endpoint) }), ...errors } } },
    async (request) => {
      const organizationId = access.organizationOf(request);
      // The response schema keeps only the public fields of each document.
      return { data: await services.readStore.find<EndpointDoc>(WEBHOOK_ENDPOINTS, { filter: { organization_id: organizationId }, sort: [['created_at', 1]] }) };
    },
  );

  app.post(
    `${prefix}/webhook-endpoints`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Subscribe a URL to event webhooks; the answer holds the signing secret, once.',
        body: z.object({ url: Url, event_types: EventTypes, enabled: z.boolean().default(true) }).strict(),
        response: { 201: WithSecret, ...errors },
      },
    },
    async (request, reply) => {
      const { url, event_types: eventTypes, enabled } = request.body;
      const created = await createWebhookEndpoint(access.context(services, request), box, { organizationId: access.organizationOf(request), url, eventTypes, enabled });
      return reply.code(201).send(created);
    },
  );

  app.get(
    `${prefix}/webhook-endpoints/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'One event webhook endpoint.', params: Params, response: { 200: Endpoint, ...errors } } },
    async (request, reply) => own(access.organizationOf(request), request.params.id, reply),
  );

  app.patch(
    `${prefix}/webhook-endpoints/:id`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Change the URL or event types, or enable (again) or disable the endpoint.',
        params: Params,
        body: z.object({ url: Url.optional(), event_types: EventTypes.optional(), enabled: z.boolean().optional() }).strict(),
        response: { 200: Endpoint, ...errors },
      },
    },
    async (request) => {
      const { url, event_types: eventTypes, enabled } = request.body;
      return updateWebhookEndpoint(access.context(services, request), access.organizationOf(request), request.params.id, { url, eventTypes, enabled });
    },
  );

  app.post(
    `${prefix}/webhook-endpoints/:id/rotate-secret`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'A new signing secret, shown once; the previous one keeps signing beside it for the overlap.',
        params: Params,
        body: z.object({ overlap_seconds: z.number().int().min(0).max(7 * 86_400).default(DEFAULT_ROTATION_OVERLAP_SECONDS) }).strict().default({ overlap_seconds: DEFAULT_ROTATION_OVERLAP_SECONDS }),
        response: { 200: WithSecret.extend({ previous_secret_expires_at: z.number().int() }), ...errors },
      },
    },
    async (request) => rotateWebhookSecret(access.context(services, request), box, access.organizationOf(request), request.params.id, request.body.overlap_seconds),
  );

  app.get(
    `${prefix}/webhook-endpoints/:id/deliveries`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: "The endpoint's deliveries, newest first, each with every attempt.",
        params: Params,
        querystring: z.object({ status: z.enum(['pending', 'succeeded', 'failed']).optional(), limit: decimalInteger(1, 250).default(50) }),
        response: { 200: z.object({ data: z.array(Delivery) }), ...errors },
      },
    },
    async (request, reply) => {
      await own(access.organizationOf(request), request.params.id, reply);
      const { status, limit } = request.query;
      const deliveries = await services.readStore.find<DeliveryDoc>(WEBHOOK_DELIVERIES, {
        filter: { endpoint_id: request.params.id, ...(status ? { status } : {}) },
        sort: [['created_at', -1]],
        limit,
      });
      const attemptsOf = await attemptsByDelivery(services.readStore, deliveries.map((d) => d.id));
      // The response schema drops the internal fields of deliveries and attempts.
      return { data: deliveries.map((d) => ({ ...d, attempt_log: attemptsOf.get(d.id) ?? [] })) };
    },
  );

  app.post(
    `${prefix}/webhook-deliveries/:id/resend`,
    {
      onRequest: authenticate,
      schema: {
        ...routeSchema,
        summary: 'Send a delivery again, once, with the same webhook-id and body.',
        params: Params,
        response: { 202: z.object({ id: z.string(), status: z.literal('pending') }), 409: ErrorSchema, ...errors },
      },
    },
    async (request, reply) => {
      // The read model points to the stream a delivery sent at once was recorded in: a miss waits for the head (bounded).
      const delivery = () => services.readStore.get<DeliveryDoc>(WEBHOOK_DELIVERIES, request.params.id);
      const sentIn = ((await delivery()) ?? ((await readModelsAtHead(services)) ? await delivery() : null))?.sent_in;
      const result = await resendWebhookDelivery(access.context(services, request), access.organizationOf(request), request.params.id, sentIn);
      return reply.code(202).send(result);
    },
  );
  // Last: route walkers (the security tests) meet the reads before the delete.
  app.delete(
    `${prefix}/webhook-endpoints/:id`,
    { onRequest: authenticate, schema: { ...routeSchema, summary: 'Delete the endpoint; nothing more is sent to it.', params: Params, response: { 204: z.null(), ...errors } } },
    async (request, reply) => {
      await deleteWebhookEndpoint(access.context(services, request), access.organizationOf(request), request.params.id);
      return reply.code(204).send(null);
    },
  );
}
