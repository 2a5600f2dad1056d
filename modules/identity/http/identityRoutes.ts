import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { SignJWT } from 'jose';
import { z } from 'zod';
import {
  ORGANIZATIONS,
  USERS,
  type OrganizationDoc,
  type UserDoc,
} from '../identityProjection.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { requireAuth } from '../../oauth/index.ts';
import { unauthenticated } from '../../../platform/http/index.ts';
import { ErrorSchema, protectedRoute } from '../../../platform/http/index.ts';

const Organization = z.object({ id: z.string(), name: z.string(), timezone: z.string() });

const UserSchema = z.object({
  id: z.string(),
  email: z.string(),
  service_jwt: z.string().describe('HS256 JWT naming the user (sub) and organization (org); expires after an hour.'),
  current_organization: Organization,
  organizations: z.array(Organization).describe("The user's other organizations."),
});

/** Lifetime of service_jwt: short, since browser surfaces hold it. */
const SERVICE_JWT_TTL_SECONDS = 3600;

export const identityRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    '/api/users/me',
    {
      onRequest: app.authenticate,
      schema: {
        ...protectedRoute,
        summary: 'The authenticated user and the current organization.',
        querystring: z.object({ api_token: z.string().optional() }),
        response: { 200: UserSchema, 401: ErrorSchema },
      },
    },
    async (request) => {
      const auth = requireAuth(request);
      const user = await services.readStore.get<UserDoc>(USERS, auth.userId);
      const current = await services.readStore.get<OrganizationDoc>(ORGANIZATIONS, auth.organizationId);
      if (!user || !current) throw unauthenticated();
      const others = await services.readStore.find<OrganizationDoc>(ORGANIZATIONS, {
        filter: { id: { $in: user.memberships.filter((id) => id !== current.id) } },
        sort: [['name', 1]],
      });
      const now = Math.floor(services.clock() / 1000);
      const serviceJwt = await new SignJWT({ org: current.id, email: user.email })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(user.id)
        .setIssuedAt(now)
        .setExpirationTime(now + SERVICE_JWT_TTL_SECONDS)
        .setIssuer('commerce-service')
        .sign(services.secrets.jwt);
      return {
        id: user.id,
        email: user.email,
        service_jwt: serviceJwt,
        current_organization: { id: current.id, name: current.name, timezone: current.timezone },
        organizations: others.map((o) => ({ id: o.id, name: o.name, timezone: o.timezone })),
      };
    },
  );
};
