import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { appView, deleteOAuthApp, loadOAuthApp, registerOAuthApp, revokeOAuthGrant, updateOAuthApp } from '../oauthCommands.ts';
import { deleteGrantRecords } from './oidcStorage.ts';
import {
  OAUTH_APPS,
  OAUTH_CONNECTIONS,
  type OAuthAppDoc,
  type OAuthConnectionDoc,
} from '../oauthProjection.ts';
import { redirectUriProblem } from '../domain/redirectUri.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { notFound } from '../../../platform/http/index.ts';
import { requireOwner, requireSession } from '../../identity/index.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { manageErrors, manageRoute } from '../../../platform/http/index.ts';

const P = '/manage/api';

/** Matched exactly by the authorization server; see redirectUriProblem for what is accepted. */
export const RedirectUri = z.string().superRefine((value, ctx) => {
  const problem = redirectUriProblem(value);
  if (problem) ctx.addIssue({ code: 'custom', message: `The redirect URI ${problem}.` });
});

export const RedirectUris = z.array(RedirectUri).min(1).max(10);
const Name = z.string().trim().min(1).max(255);

export const OAuthApp = z.object({
  client_id: z.string(),
  name: z.string(),
  redirect_uris: z.array(z.string()),
  public: z.boolean().describe('A public client has no secret and authenticates with PKCE alone.'),
  token_endpoint_auth_method: z.enum(['client_secret_basic', 'none']),
  created_at: z.number().int(),
});

const appAnswer = (a: { client_id: string; name: string; redirect_uris: string[]; public: boolean; created_at: number }) => ({
  client_id: a.client_id,
  name: a.name,
  redirect_uris: a.redirect_uris,
  public: a.public,
  token_endpoint_auth_method: a.public ? ('none' as const) : ('client_secret_basic' as const),
  created_at: a.created_at,
});

const ClientParams = z.object({ client_id: z.string().max(100) });

export const Connection = z.object({
  id: z.string(),
  client_id: z.string(),
  app_name: z.string(),
  organization_id: z.string(),
  scopes: z.array(z.string()),
  granted_at: z.number().int(),
  last_used_at: z.number().int().nullable(),
});

/** Apps registered by an organization (its owners), and the apps a person connected. */
export const oauthAppRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  /** The app if it is this organization's; another's answers like one that does not exist. */
  const ownApp = async (organizationId: string, clientId: string) => {
    const state = await loadOAuthApp(services.store, clientId);
    if (state.status !== 'active' || state.organizationId !== organizationId) throw notFound('OAuth app');
    return state;
  };

  app.get(
    `${P}/oauth-apps`,
    { onRequest: app.authenticateOwner, schema: { ...manageRoute, summary: "The organization's OAuth apps, newest first (owners; never their secrets).", response: { 200: z.object({ data: z.array(OAuthApp) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const docs = await services.readStore.find<OAuthAppDoc>(OAUTH_APPS, { filter: { organization_id: organizationId }, sort: [['created_at', -1]], limit: 1000 });
      return { data: docs.map((d) => appAnswer({ ...d, client_id: d.id })) };
    },
  );

  app.post(
    `${P}/oauth-apps`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Register an OAuth app (owners): the client secret is in this answer only; a public app gets none.',
        body: z.strictObject({ name: Name, redirect_uris: RedirectUris, public: z.boolean().default(false) }),
        response: { 201: OAuthApp.extend({ client_secret: z.string().nullable() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId, userId } = requireOwner(request);
      const created = await registerOAuthApp(manageContext(services, request), {
        organizationId,
        userId,
        name: request.body.name,
        redirectUris: request.body.redirect_uris,
        public: request.body.public,
      });
      return reply.code(201).send({ ...appAnswer(created), client_secret: created.client_secret });
    },
  );

  app.get(
    `${P}/oauth-apps/:client_id`,
    { onRequest: app.authenticateOwner, schema: { ...manageRoute, summary: 'One OAuth app (owners).', params: ClientParams, response: { 200: OAuthApp, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOwner(request);
      return appAnswer(appView(await ownApp(organizationId, request.params.client_id)));
    },
  );

  app.patch(
    `${P}/oauth-apps/:client_id`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Rename an OAuth app or replace its redirect URIs (owners).',
        params: ClientParams,
        body: z.strictObject({ name: Name.optional(), redirect_uris: RedirectUris.optional() }),
        response: { 200: OAuthApp, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      await ownApp(organizationId, request.params.client_id);
      const updated = await updateOAuthApp(manageContext(services, request), request.params.client_id, {
        organizationId,
        ...(request.body.name !== undefined ? { name: request.body.name } : {}),
        ...(request.body.redirect_uris !== undefined ? { redirectUris: request.body.redirect_uris } : {}),
      });
      return appAnswer(updated);
    },
  );

  app.delete(
    `${P}/oauth-apps/:client_id`,
    {
      onRequest: app.authenticateOwner,
      schema: { ...manageRoute, summary: 'Delete an OAuth app (owners): its tokens answer 401 from then on.', params: ClientParams, response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      await ownApp(organizationId, request.params.client_id);
      await deleteOAuthApp(manageContext(services, request), request.params.client_id, organizationId);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${P}/connected-apps`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'The apps you connected and have not disconnected, newest first.', response: { 200: z.object({ data: z.array(Connection) }), ...manageErrors } } },
    async (request) => {
      const { userId } = requireSession(request);
      const docs = await services.readStore.find<OAuthConnectionDoc>(OAUTH_CONNECTIONS, { filter: { user_id: userId }, sort: [['granted_at', -1]], limit: 1000 });
      return { data: docs.filter((d) => d.revoked_at === null).map(({ user_id: _user, revoked_at: _revoked, ...connection }) => connection) };
    },
  );

  app.delete(
    `${P}/connected-apps/:id`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Disconnect an app: its access and refresh tokens stop working at once.',
        params: z.object({ id: z.string().max(100) }),
        response: { 204: z.null(), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { userId } = requireSession(request);
      await revokeOAuthGrant(manageContext(services, request), request.params.id, 'user', userId);
      await deleteGrantRecords(services.readStore, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
