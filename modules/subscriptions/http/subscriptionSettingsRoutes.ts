import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { ErrorSchema } from '../../../platform/http/index.ts';
import { bearerAccess, manageAccess, type RouteAccess } from '../../oauth/index.ts';
import { changeDunningSettings, loadDunningSettings } from '../dunningSettings.ts';

export const SubscriptionSettings = z.object({
  retry_days: z
    .array(z.number().int())
    .max(8)
    .describe('Days after the first failed payment of an invoice on which it is retried: increasing, 1 to 60, at most eight. [] retries never.'),
  final_action: z.enum(['canceled', 'unpaid']).describe('What the subscription becomes when the last retry fails.'),
  grace_days: z.number().int().describe('Days after the first failure during which a past_due subscription stays entitled (0 to 60).'),
});

const Body = SubscriptionSettings.strict();

type Access = RouteAccess & { read: 'authenticate' | 'authenticateSession'; write: 'authenticate' | 'authenticateOwner' };

const bearer: Access = {
  ...bearerAccess,
  read: 'authenticate',
  // The owner-only rule of a bearer credential is the table's (modules/identity/domain/bearerAccess.ts).
  write: 'authenticate',
  errors: { 401: ErrorSchema, 403: ErrorSchema, 422: ErrorSchema },
};

const manage: Access = { ...manageAccess, read: 'authenticateSession', write: 'authenticateOwner' };

/** The organization's dunning rules (retry ladder, final action, grace), through an API key or token. */
export const subscriptionSettingsRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => settingsRoutes(app, services, bearer);

/** The same, through the management API (session cookie; owners change them). */
export const subscriptionSettingsManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => settingsRoutes(app, services, manage);

async function settingsRoutes(app: Parameters<FastifyPluginAsyncZod>[0], services: Services, access: Access): Promise<void> {
  const path = `${access.prefix}/subscription_settings`;
  app.get(
    path,
    {
      onRequest: app[access.read],
      schema: { ...access.schema, summary: "The organization's dunning rules: when a failed renewal is retried, and what follows the last failure.", response: { 200: SubscriptionSettings, ...access.errors } },
    },
    async (request) => loadDunningSettings(services.store, access.organizationOf(request)),
  );

  app.put(
    path,
    {
      onRequest: app[access.write],
      schema: {
        ...access.schema,
        summary: 'Set the dunning rules (owners): they apply from the next failed payment on.',
        body: Body,
        response: { 200: SubscriptionSettings, ...access.errors },
      },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      return changeDunningSettings(access.context(services, request), organizationId, request.body);
    },
  );
}
