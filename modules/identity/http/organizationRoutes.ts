import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { logoPath, type OrganizationLogo } from '../domain/organization.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import {
  apiKeyOfOrganization,
  changeMemberRole,
  invitationPath,
  loadOrganization,
  removeMember,
  updateOrganization,
  type OrganizationSettings,
} from '../accountCommands.ts';
import { createApiKey, revokeApiKey } from '../identityCommands.ts';
import { RedirectOrigins } from '../../checkout/index.ts';
import { inviteMember, revokeMembershipInvitation } from '../invitationCommands.ts';
import { DomainError } from '../../../platform/domain/index.ts';
import { API_KEYS, INVITATIONS, MEMBERS, USERS, type ApiKeyDoc, type InvitationDoc, type MemberDoc, type UserDoc } from '../identityProjection.ts';
import { baseUrl } from '../../../platform/http/index.ts';
import { notFound } from '../../../platform/http/index.ts';
import { requireOrganization, requireOwner } from './sessionAuth.ts';
import { ApiKey, Member, Organization } from './identitySchemas.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { Email, Id, manageErrors, manageRoute, Role } from '../../../platform/http/index.ts';
import { readModelsAtHead, readModelsReached, STALE_HEADER } from '../../../platform/http/index.ts';

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

/** The accent colour of the hosted pages: `#rrggbb`, stored lower case. */
export const BrandColor = z
  .string()
  .regex(/^#[0-9A-Fa-f]{6}$/, 'must be a colour as #rrggbb, such as #1d4ed8')
  .transform((c) => c.toLowerCase());

/** A logo as a data URL (`data:image/png;base64,…`), as a browser's FileReader gives it. */
const LogoUpload = z
  .string()
  .max(400_000, 'must be at most 256 KB')
  .transform((value, ctx): OrganizationLogo => {
    const match = /^data:(image\/png|image\/jpeg);base64,([A-Za-z0-9+/]+={0,2})$/.exec(value);
    if (!match) {
      ctx.addIssue({
        code: 'custom',
        message: value.startsWith('data:image/svg') ? 'SVG is not accepted: upload a PNG or JPEG.' : 'must be a PNG or JPEG image as a data URL (data:image/png;base64,…).',
      });
      return z.NEVER;
    }
    const data = match[2]!;
    return { content_type: match[1] as OrganizationLogo['content_type'], data, sha256: createHash('sha256').update(Buffer.from(data, 'base64')).digest('hex') };
  });

/** The organization as the settings answer shows it: the logo as its public URL. */
export const organizationView = (org: OrganizationSettings, base: string) => ({
  id: org.id,
  name: org.name,
  timezone: org.timezone,
  address: org.address,
  vat_number: org.vat_number,
  brand_color: org.brand_color,
  logo_url: org.logo ? `${base}${logoPath(org.id, org.logo)}` : null,
  allowed_redirect_origins: org.allowed_redirect_origins,
});

const memberView = (m: MemberDoc) => ({ id: m.user_id, email: m.email, role: m.role, status: 'active' as const, joined_at: m.joined_at, invitation_expires_at: null });
const invitedView = (i: Pick<InvitationDoc, 'id' | 'email' | 'role' | 'expires_at'>) => ({ id: i.id, email: i.email, role: i.role, status: 'invited' as const, joined_at: null, invitation_expires_at: i.expires_at });
const keyView = (k: ApiKeyDoc, emails: ReadonlyMap<string, string>) => ({ id: k.id, name: k.name, user_id: k.user_id, user_email: emails.get(k.user_id) ?? null, created_at: k.created_at, expires_at: k.expires_at, revoked_at: k.revoked_at, last_used_at: k.last_used_at ?? null });

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
      return organizationView(org, baseUrl(services, request));
    },
  );

  app.patch(
    `${P}/organization`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary:
          "Change the organization's name, time zone, postal address, VAT number, brand colour, logo or allowed redirect origins (owners). Dates in the dashboard follow the time zone; the hosted checkout, receipts, invoices, credit notes and buyer emails show the name, address, VAT number and logo; the customer portal takes the brand colour.",
        body: z.strictObject({
          name: z.string().trim().min(1).max(255).optional(),
          timezone: TimeZone.optional(),
          address: Address.nullable().optional().describe('null removes it; left out, it stays.'),
          vat_number: z
            .string()
            .trim()
            .max(32)
            .regex(/^[A-Za-z0-9 .-]*$/, 'must be letters, digits, spaces, dots or dashes, such as NL123456789B01')
            .nullable()
            .optional()
            .transform((v) => (v === '' ? null : v))
            .describe('null or "" removes it; left out, it stays.'),
          brand_color: BrandColor.nullable().optional().describe('`#rrggbb` (stored lower case); null removes it; left out, it stays.'),
          logo: LogoUpload.nullable().optional().describe('A PNG or JPEG of at most 256 KB as a data URL; null removes it; left out, it stays.'),
          allowed_redirect_origins: RedirectOrigins.optional().describe(
            'Origins (https://shop.example) on which a caller without an API key (a browser) may send success_url and cancel_url for any offer of the organization; [] allows none; left out, it stays.',
          ),
        }),
        response: { 200: Organization, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      return organizationView(await updateOrganization(manageContext(services, request), organizationId, request.body), baseUrl(services, request));
    },
  );

  const ownersOf = async (organizationId: string) =>
    services.readStore.count(MEMBERS, { organization_id: organizationId, role: 'owner' });
  /** Members and the owner count are read models: they first reach the log's head (bounded). */
  const memberOf = async (organizationId: string, userId: string) => {
    await readModelsAtHead(services);
    const member = await services.readStore.get<MemberDoc>(MEMBERS, `${organizationId}:${userId}`);
    if (!member) throw notFound('Member');
    return member;
  };

  app.get(
    `${P}/members`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'The members of the organization and the people invited, by email.', response: { 200: z.object({ data: z.array(Member) }), ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const docs = await services.readStore.find<MemberDoc>(MEMBERS, { filter: { organization_id: organizationId }, sort: [['email', 1]], limit: 1000 });
      const invited = await services.readStore.find<InvitationDoc>(INVITATIONS, { filter: { organization_id: organizationId, status: 'pending' }, sort: [['email', 1]], limit: 1000 });
      const members = new Set(docs.map((d) => d.email));
      return {
        data: [...docs.map(memberView), ...invited.filter((i) => !members.has(i.email)).map(invitedView)].sort((a, b) => a.email.localeCompare(b.email)),
      };
    },
  );

  app.post(
    `${P}/members`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Invite a person (owners): a pending membership they accept themselves, with its one-time link (24 h).',
        description:
          'The answer is the same whether or not the email has an account: the person joins only by accepting, signed in as themselves (or by setting up their account through the link when the email has none). Inviting again replaces the pending invitation and its link.',
        body: z.strictObject({ email: Email, role: Role.default('member') }),
        response: { 201: Member.extend({ invitation_link: z.string() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId, userId } = requireOwner(request);
      const ctx = manageContext(services, request);
      const invitation = await inviteMember(ctx, { organizationId, email: request.body.email, role: request.body.role, invitedBy: userId });
      return reply.code(201).send({ ...invitedView(invitation), invitation_link: `${baseUrl(services, request)}${invitationPath(invitation.token)}` });
    },
  );

  const MemberParams = z.object({ user: Id });

  app.patch(
    `${P}/members/:user`,
    {
      onRequest: app.authenticateOwner,
      schema: { ...manageRoute, summary: "Change a member's role (owners).", params: MemberParams, body: z.strictObject({ role: Role }), response: { 200: Member, ...manageErrors } },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const member = await memberOf(organizationId, request.params.user);
      if (member.role === 'owner' && request.body.role !== 'owner' && (await ownersOf(organizationId)) <= 1) throw lastOwner();
      const user = await changeMemberRole(manageContext(services, request), organizationId, request.params.user, request.body.role);
      return memberView({ ...member, role: user.roles[organizationId]! });
    },
  );

  app.delete(
    `${P}/members/:user`,
    {
      onRequest: app.authenticateOwner,
      schema: { ...manageRoute, summary: 'Remove a member, or revoke a pending invitation (`inv_…`), of the organization (owners).', params: MemberParams, response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId, userId } = requireOwner(request);
      if (request.params.user.startsWith('inv_')) {
        await revokeMembershipInvitation(manageContext(services, request), organizationId, request.params.user, userId);
        return reply.code(204).send(null);
      }
      const member = await memberOf(organizationId, request.params.user);
      if (member.role === 'owner' && (await ownersOf(organizationId)) <= 1) throw lastOwner();
      await removeMember(manageContext(services, request), organizationId, request.params.user);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${P}/api-keys`,
    { onRequest: app.authenticateOwner, schema: { ...manageRoute, summary: "The organization's API keys, newest first, with whose each is (owners; never their tokens).", response: { 200: z.object({ data: z.array(ApiKey) }), ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const docs = await services.readStore.find<ApiKeyDoc>(API_KEYS, { filter: { organization_id: organizationId }, sort: [['created_at', -1]], limit: 1000 });
      // Whose each key is, by the users' documents: a removed member's email included.
      const ids = [...new Set(docs.map((k) => k.user_id))];
      const users = ids.length > 0 ? await services.readStore.find<UserDoc>(USERS, { filter: { id: { $in: ids } } }) : [];
      const emails = new Map(users.map((u) => [u.id, u.email]));
      return { data: docs.map((k) => keyView(k, emails)) };
    },
  );

  app.post(
    `${P}/api-keys`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Create an API key in your name (owners): the token is in this answer only.',
        body: z.strictObject({ name: z.string().trim().min(1).max(255), expires_at: z.number().int().positive().nullable().default(null) }),
        response: { 201: ApiKey.extend({ token: z.string() }), ...manageErrors },
      },
    },
    async (request, reply) => {
      const { organizationId, userId, email } = requireOwner(request);
      const ctx = manageContext(services, request);
      const key = await createApiKey(ctx, { userId, organizationId, name: request.body.name, expiresAt: request.body.expires_at });
      return reply.code(201).send({
        id: key.id,
        name: request.body.name,
        user_id: userId,
        user_email: email,
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
      onRequest: app.authenticateOwner,
      schema: { ...manageRoute, summary: 'Revoke an API key (owners): it answers 401 from then on.', params: z.object({ key: Id }), response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      if (!(await apiKeyOfOrganization(services.store, organizationId, request.params.key))) throw notFound('API key');
      await revokeApiKey(manageContext(services, request), request.params.key);
      // Keys are checked against the identity read model: the 204 waits (bounded) until it holds
      // the revocation, so "answers 401 from then on" is true for whoever uses the key next.
      const at = request.appendTrack?.position ?? null;
      if (at !== null && !(await readModelsReached(services, at))) reply.header(STALE_HEADER, 'true');
      return reply.code(204).send(null);
    },
  );
};
