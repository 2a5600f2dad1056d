import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../app/services.ts';
import {
  apiKeyOfOrganization,
  changeMemberRole,
  invitationPath,
  inviteIfNeeded,
  loadOrganization,
  removeMember,
  updateOrganization,
} from '../../../commands/identity/accountCommands.ts';
import { createApiKey, createUser, revokeApiKey } from '../../../commands/identity/identityCommands.ts';
import { DomainError } from '../../../domain/shared/domainError.ts';
import { API_KEYS, MEMBERS, type ApiKeyDoc, type MemberDoc } from '../../../projections/identity/identityProjection.ts';
import { baseUrl } from '../../context.ts';
import { notFound } from '../../errors.ts';
import { requireOrganization, requireOwner } from '../../plugins/sessionAuth.ts';
import { manageContext } from './manageContext.ts';
import { Email, Id, manageErrors, manageRoute, Role } from './manageSchemas.ts';
import { readModelsAtHead } from '../../plugins/readYourWrites.ts';

const P = '/manage/api';

const isTimeZone = (tz: string) => {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
};
const TimeZone = z.string().min(1).max(64).refine(isTimeZone, 'must be an IANA time zone such as Europe/Amsterdam');

const Text = (max: number) => z.string().trim().min(1).max(max);
const OptionalText = (max: number) => z.string().trim().max(max).nullable().default(null).transform((v) => (v === '' ? null : v));
/** The postal address receipts and invoices print under the organization's name. */
export const Address = z.strictObject({
  line1: Text(200),
  line2: OptionalText(200),
  postal_code: OptionalText(32),
  city: Text(120),
  region: OptionalText(120),
  country: z
    .string()
    .regex(/^[A-Za-z]{2}$/, 'must be a two-letter country code (ISO 3166-1 alpha-2), such as NL')
    .transform((c) => c.toUpperCase()),
});
const AddressOut = z.object({
  line1: z.string(),
  line2: z.string().nullable(),
  postal_code: z.string().nullable(),
  city: z.string(),
  region: z.string().nullable(),
  country: z.string(),
});
const Organization = z.object({ id: z.string(), name: z.string(), timezone: z.string(), address: AddressOut.nullable() });
const Member = z.object({ id: z.string(), email: z.string(), role: Role, joined_at: z.number().int() });
const ApiKey = z.object({
  id: z.string(),
  name: z.string(),
  user_id: z.string(),
  created_at: z.number().int(),
  expires_at: z.number().int().nullable(),
  revoked_at: z.number().int().nullable(),
  last_used_at: z.number().int().nullable().describe('When a request last authenticated with the key, to within five minutes; null if never.'),
});

const memberView = (m: MemberDoc) => ({ id: m.user_id, email: m.email, role: m.role, joined_at: m.joined_at });
const keyView = (k: ApiKeyDoc) => ({ id: k.id, name: k.name, user_id: k.user_id, created_at: k.created_at, expires_at: k.expires_at, revoked_at: k.revoked_at, last_used_at: k.last_used_at ?? null });

const lastOwner = () => new DomainError('conflict', 'last_owner', 'An organization keeps at least one owner.');

/** Organization settings, members and API keys: owners change them; members only read settings and members. */
export const organizationRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    `${P}/organization`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'The current organization.', response: { 200: Organization, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const org = await loadOrganization(services.store, organizationId);
      if (!org) throw notFound('Organization');
      return { id: org.id, name: org.name, timezone: org.timezone, address: org.address };
    },
  );

  app.patch(
    `${P}/organization`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "Change the organization's name, time zone or postal address (owners). Dates in the dashboard follow the time zone; receipts print the name and address.",
        body: z.strictObject({
          name: z.string().trim().min(1).max(255).optional(),
          timezone: TimeZone.optional(),
          address: Address.nullable().optional().describe('null removes it; left out, it stays.'),
        }),
        response: { 200: Organization, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      return updateOrganization(manageContext(services, request), organizationId, request.body);
    },
  );

  const ownersOf = async (organizationId: string) =>
    services.readStore.count(MEMBERS, { organization_id: organizationId, role: 'owner' });

  app.get(
    `${P}/members`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'The members of the organization, by email.', response: { 200: z.object({ data: z.array(Member) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const docs = await services.readStore.find<MemberDoc>(MEMBERS, { filter: { organization_id: organizationId }, sort: [['email', 1]], limit: 1000 });
      return { data: docs.map(memberView) };
    },
  );

  app.post(
    `${P}/members`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Invite a person (owners): answers the one-time invitation link (24 h) while they cannot sign in yet.',
        body: z.strictObject({ email: Email, role: Role.default('member') }),
        response: { 201: Member.extend({ invitation_link: z.string().nullable(), invitation_expires_at: z.number().int().nullable() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      const ctx = manageContext(services, request);
      const user = await createUser(ctx, { email: request.body.email, organizationId, role: request.body.role });
      if (!user.joined) throw new DomainError('conflict', 'already_a_member', 'That person is already a member.');
      const invitation = await inviteIfNeeded(ctx, user.id);
      return reply.code(201).send({
        id: user.id,
        email: user.email,
        role: request.body.role,
        joined_at: ctx.metadata.occurred_at,
        invitation_link: invitation ? `${baseUrl(services, request)}${invitationPath(invitation.token)}` : null,
        invitation_expires_at: invitation?.expires_at ?? null,
      });
    },
  );

  const MemberParams = z.object({ user: Id });

  app.patch(
    `${P}/members/:user`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "Change a member's role (owners).", params: MemberParams, body: z.strictObject({ role: Role }), response: { 200: Member, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      // Members and the owner count are read models: they first reach the log's head (bounded).
      await readModelsAtHead(services);
      const member = await services.readStore.get<MemberDoc>(MEMBERS, `${organizationId}:${request.params.user}`);
      if (!member) throw notFound('Member');
      if (member.role === 'owner' && request.body.role !== 'owner' && (await ownersOf(organizationId)) <= 1) throw lastOwner();
      const user = await changeMemberRole(manageContext(services, request), organizationId, request.params.user, request.body.role);
      return { id: user.id, email: user.email, role: user.roles[organizationId]!, joined_at: member.joined_at };
    },
  );

  app.delete(
    `${P}/members/:user`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Remove a member from the organization (owners).', params: MemberParams, response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      // Members and the owner count are read models: they first reach the log's head (bounded).
      await readModelsAtHead(services);
      const member = await services.readStore.get<MemberDoc>(MEMBERS, `${organizationId}:${request.params.user}`);
      if (!member) throw notFound('Member');
      if (member.role === 'owner' && (await ownersOf(organizationId)) <= 1) throw lastOwner();
      await removeMember(manageContext(services, request), organizationId, request.params.user);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${P}/api-keys`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: "The organization's API keys, newest first (owners; never their tokens).", response: { 200: z.object({ data: z.array(ApiKey) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const docs = await services.readStore.find<ApiKeyDoc>(API_KEYS, { filter: { organization_id: organizationId }, sort: [['created_at', -1]], limit: 1000 });
      return { data: docs.map(keyView) };
    },
  );

  app.post(
    `${P}/api-keys`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Create an API key in your name (owners): the token is in this answer only.',
        body: z.strictObject({ name: z.string().trim().min(1).max(255), expires_at: z.number().int().positive().nullable().default(null) }),
        response: { 201: ApiKey.extend({ token: z.string() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId, userId } = requireOwner(request);
      const ctx = manageContext(services, request);
      const key = await createApiKey(ctx, { userId, organizationId, name: request.body.name, expiresAt: request.body.expires_at });
      return reply.code(201).send({
        id: key.id,
        name: request.body.name,
        user_id: userId,
        created_at: ctx.metadata.occurred_at,
        expires_at: key.expires_at,
        revoked_at: null,
        last_used_at: null,
        token: key.token,
      });
    },
  );

  app.delete(
    `${P}/api-keys/:key`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'Revoke an API key (owners): it answers 401 from then on.', params: z.object({ key: Id }), response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      if (!(await apiKeyOfOrganization(services.store, organizationId, request.params.key))) throw notFound('API key');
      await revokeApiKey(manageContext(services, request), request.params.key);
      return reply.code(204).send(null);
    },
  );
};
