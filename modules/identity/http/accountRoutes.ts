import type { FastifyReply, FastifyRequest } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { generateAuthenticationOptions, verifyAuthenticationResponse, type AuthenticationResponseJSON } from '@simplewebauthn/server';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import {
  acceptInvitationWithPassword,
  acceptInvitationWithPasskey,
  endSession,
  loadOrganization,
  loadSession,
  loadUser,
  readInvitation,
  recordPasskeyUse,
  recordSignInFailure,
  revokeOwnSession,
  SESSION_ABSOLUTE_SECONDS,
  startSession,
  switchOrganization,
  userIdByPasskey,
  verifyPassword,
  type ActiveUser,
  type StartedSession,
} from '../accountCommands.ts';
import { csrfTokenFor, parseMembershipInvitationToken, parseSessionCookie } from '../accountSecrets.ts';
import {
  acceptMembershipInvitation,
  acceptMembershipInvitationWithNewAccount,
  declineMembershipInvitation,
  newAccountInvitation,
  readMembershipInvitation,
} from '../invitationCommands.ts';
import type { InvitationDoc, OrganizationDoc, UserSessionDoc } from '../identityProjection.ts';
import { INVITATIONS, ORGANIZATIONS, USER_SESSIONS } from '../identityProjection.ts';
import { HttpError, unauthenticated } from '../../../platform/http/index.ts';
import { clearSessionCookie, requireSession, sessionCookieValue, setSessionCookie } from './sessionAuth.ts';
import { PendingInvitation, UserSession } from './identitySchemas.ts';
import { ErrorSchema } from '../../../platform/http/index.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { AuthenticationResponse, Email, Id, manageErrors, manageRoute, Password, RegistrationResponse, Role, SessionAnswer } from '../../../platform/http/index.ts';
import { challengeToken, readChallengeToken, registrationOptions, relyingParty, verifiedRegistration } from './webauthn.ts';

const P = '/manage/api';
/** Laravel's auth.failed: the same words for an unknown email, a wrong password and a bad passkey. */
const FAILED = 'These credentials do not match our records.';
const signInFailed = (field = 'email') => new HttpError(422, 'credentials_invalid', FAILED, { [field]: [FAILED] });
const publicRoute = { tags: ['manage'] } as const;
const PasskeyOptions = z.object({ options: z.record(z.string(), z.unknown()), challenge_token: z.string() });
const publicErrors = { 403: ErrorSchema, 410: ErrorSchema, 422: ErrorSchema, 429: ErrorSchema };

/** Sign-in failures: per address, and per account (keyed by the normalised email). */
const SIGN_IN_PER_ADDRESS = { max: 30, timeWindow: 15 * 60_000 };
const SIGN_IN_PER_ACCOUNT = { max: 10, timeWindow: 15 * 60_000 };

export type SessionAnswerBody = z.infer<typeof SessionAnswer>;

/** The answer of every route that starts or reads a session: built from the streams, not a read model. */
export async function sessionAnswer(
  services: Services,
  user: ActiveUser,
  session: { id: string; signedInAt: number; absoluteExpiresAt: number; idleTimeout: number },
  cookieValue: string,
): Promise<SessionAnswerBody> {
  const orgs = [];
  for (const id of user.memberships) {
    const org = await loadOrganization(services.store, id);
    if (org) orgs.push({ id: org.id, name: org.name, timezone: org.timezone, role: user.roles[id] ?? 'owner' });
  }
  orgs.sort((a, b) => a.name.localeCompare(b.name));
  return {
    user: { id: user.id, email: user.email, has_password: user.passwordHash !== null, passkeys: user.passkeys.length },
    current_organization: orgs.find((o) => o.id === user.currentOrganizationId) ?? null,
    organizations: orgs.filter((o) => o.id !== user.currentOrganizationId),
    csrf_token: csrfTokenFor(cookieValue),
    session: { id: session.id, signed_in_at: session.signedInAt, expires_at: session.absoluteExpiresAt, idle_timeout: session.idleTimeout },
  };
}

export const accountRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  // A second limit on one route: @fastify/rate-limit runs one hook per request, so this one is
  // asked directly (after the body is parsed: the key is the email it names).
  const accountLimiter = app.createRateLimit({
    ...SIGN_IN_PER_ACCOUNT,
    keyGenerator: (request: FastifyRequest) => {
      const email = (request.body as { email?: unknown } | undefined)?.email;
      return `sign-in-account:${typeof email === 'string' ? email.trim().toLowerCase() : ''}`;
    },
  });
  const perAccount = async (request: FastifyRequest, reply: FastifyReply) => {
    const limit = await accountLimiter(request);
    if (!limit.isAllowed && limit.isExceeded) {
      void reply.header('retry-after', String(limit.ttlInSeconds));
      throw new HttpError(429, 'too_many_attempts', 'Too Many Attempts.');
    }
  };

  /** The answer of a route that changes the signed-in person within their current session. */
  const currentSessionAnswer = async (s: { sessionId: string; cookieValue: string }, user: ActiveUser | null) => {
    const session = await loadSession(services.store, s.sessionId);
    if (!user || session.status === 'none') throw unauthenticated();
    return sessionAnswer(services, user, session, s.cookieValue);
  };

  /** A form of the public pages: same origin only, limited per client address. */
  const publicPost = { onRequest: app.sameOriginOnly, config: { rateLimit: SIGN_IN_PER_ADDRESS } };

  /** Starts the session, sets the rotated cookie and answers the session. */
  const signIn = async (request: FastifyRequest, reply: FastifyReply, user: ActiveUser, method: 'password' | 'passkey' | 'invitation') => {
    const previous = parseSessionCookie(sessionCookieValue(request) ?? '');
    const started: StartedSession = await startSession(manageContext(services, request), {
      userId: user.id,
      method,
      ip: request.ip ?? null,
      userAgent: typeof request.headers['user-agent'] === 'string' ? request.headers['user-agent'].slice(0, 512) : null,
      previous,
    });
    setSessionCookie(request, reply, started.cookieValue, SESSION_ABSOLUTE_SECONDS);
    return sessionAnswer(services, user, started.state, started.cookieValue);
  };

  app.post(
    `${P}/sign-in`,
    {
      ...publicPost,
      preHandler: perAccount,
      schema: {
        ...publicRoute,
        summary: 'Sign in with email and password: sets the session cookie.',
        description: `A wrong password and an unknown email answer alike (422). Limited to ${SIGN_IN_PER_ACCOUNT.max} attempts per account and ${SIGN_IN_PER_ADDRESS.max} per address in 15 minutes (429).`,
        body: z.object({ email: Email, password: z.string().min(1).max(256) }),
        response: { 200: SessionAnswer, ...publicErrors },
      },
    },
    async (request, reply) => {
      const user = await verifyPassword(manageContext(services, request), request.body.email, request.body.password);
      if (!user) throw signInFailed();
      return signIn(request, reply, user, 'password');
    },
  );

  app.post(
    `${P}/sign-in/passkey/options`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'Options for navigator.credentials.get(), with the challenge token to send back.',
        body: z.object({}).optional(),
        response: { 200: PasskeyOptions, ...publicErrors },
      },
    },
    async (request) => {
      const { rpID } = relyingParty(services, request);
      // No allowCredentials: a discoverable passkey names its user (no email typed, none revealed).
      const options = await generateAuthenticationOptions({ rpID, userVerification: 'preferred' });
      return { options: options as unknown as Record<string, unknown>, challenge_token: await challengeToken(services, options.challenge, 'authenticate', 'sign-in') };
    },
  );

  app.post(
    `${P}/sign-in/passkey`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'Sign in with a passkey: the assertion of navigator.credentials.get(); sets the session cookie.',
        body: z.object({ challenge_token: z.string().min(1).max(2048), response: AuthenticationResponse }),
        response: { 200: SessionAnswer, ...publicErrors },
      },
    },
    async (request, reply) => {
      const expectedChallenge = await readChallengeToken(services, request.body.challenge_token, 'authenticate', 'sign-in');
      const response = request.body.response as AuthenticationResponseJSON;
      const ctx = manageContext(services, request);
      const userId = await userIdByPasskey(services.store, response.id);
      const user = userId ? await loadUser(services.store, userId) : null;
      const passkey = user?.passkeys.find((p) => p.credential_id === response.id);
      const { rpID, origin } = relyingParty(services, request);
      let verified = false;
      if (user && passkey) {
        try {
          const result = await verifyAuthenticationResponse({
            response,
            expectedChallenge,
            expectedOrigin: origin,
            expectedRPID: rpID,
            requireUserVerification: false,
            credential: {
              id: passkey.credential_id,
              publicKey: Buffer.from(passkey.public_key, 'base64url'),
              counter: passkey.counter,
              transports: passkey.transports as never,
            },
          });
          verified = result.verified;
          if (verified) await recordPasskeyUse(ctx, user.id, passkey.credential_id, result.authenticationInfo.newCounter);
        } catch {
          verified = false;
        }
      }
      if (!user || !verified) {
        await recordSignInFailure(ctx, user?.email ?? '', { user_id: user?.id ?? null, method: 'passkey', reason: 'passkey_invalid' });
        throw signInFailed('response');
      }
      return signIn(request, reply, user, 'passkey');
    },
  );

  const InvitationToken = z.string().min(1).max(200);
  const invitationGone = () => new HttpError(410, 'invitation_invalid', 'The invitation link is invalid or has expired.');


  const InvitationInfo = z.object({
    kind: z.enum(['account', 'membership']).describe('`account`: a link to set up (or reset) how a person signs in; `membership`: an invitation to join an organization.'),
    email: z.string(),
    expires_at: z.number().int(),
    has_password: z.boolean().optional().describe('`account` links only.'),
    id: z.string().optional().describe('`membership` only: the invitation, for a signed-in person to accept.'),
    organization: z.object({ name: z.string() }).optional(),
    role: Role.optional(),
  });

  /**
   * What a link stands for. A membership invitation says nothing of whether its email has an
   * account: whoever holds the link (the inviter, until invitations are emailed) learns nothing.
   */
  const invitationInfo = async (token: string): Promise<z.infer<typeof InvitationInfo>> => {
    const at = Math.floor(services.clock() / 1000);
    if (parseMembershipInvitationToken(token)) {
      const invitation = await readMembershipInvitation(services.store, token, at);
      const org = invitation && (await loadOrganization(services.store, invitation.organizationId));
      if (!invitation || !org) throw invitationGone();
      return { kind: 'membership', id: invitation.id, email: invitation.email, expires_at: invitation.expiresAt, organization: { name: org.name }, role: invitation.role };
    }
    const user = await readInvitation(services.store, token, at);
    if (!user) throw invitationGone();
    return { kind: 'account', email: user.email, expires_at: user.invitation!.expiresAt, has_password: user.passwordHash !== null };
  };

  app.post(
    `${P}/invitations/lookup`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'The invitation behind a link (the token from its fragment): whom it is for and until when (410 once used, replaced or expired).',
        body: z.object({ token: InvitationToken }),
        response: { 200: InvitationInfo, ...publicErrors },
      },
    },
    async (request) => invitationInfo(request.body.token),
  );

  app.get(
    `${P}/invitations/:token`,
    {
      // The token is the path: the access log shows it redacted.
      config: { rateLimit: SIGN_IN_PER_ADDRESS, secretPath: true },
      schema: {
        ...publicRoute,
        summary: 'Deprecated: POST /manage/api/invitations/lookup keeps the token out of the path.',
        params: z.object({ token: InvitationToken }),
        response: { 200: InvitationInfo, ...publicErrors },
      },
    },
    async (request) => invitationInfo(request.params.token),
  );

  app.post(
    `${P}/invitations/accept`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'Accept a link by setting a password: signs in.',
        description:
          'An `account` link (or password reset) sets the password of its person. A `membership` link makes the account of an email that has none, as a member; an email with an account answers 409 `account_exists` (its person signs in and accepts the invitation there).',
        body: z.object({ token: InvitationToken, password: Password }),
        response: { 200: SessionAnswer, 409: ErrorSchema, ...publicErrors },
      },
    },
    async (request, reply) => {
      const ctx = manageContext(services, request);
      const { token, password } = request.body;
      const user = parseMembershipInvitationToken(token)
        ? await acceptMembershipInvitationWithNewAccount(ctx, token, { password })
        : await acceptInvitationWithPassword(ctx, token, password);
      return signIn(request, reply, user, 'invitation');
    },
  );

  /** The user a link registers a passkey for: an account link's person, or the account a membership link would make. */
  const passkeySubject = async (token: string): Promise<{ id: string; email: string; passkeys: ActiveUser['passkeys'] }> => {
    const at = Math.floor(services.clock() / 1000);
    if (parseMembershipInvitationToken(token)) {
      const made = await newAccountInvitation(services.store, token, at);
      return { id: made.userId, email: made.email, passkeys: [] };
    }
    const user = await readInvitation(services.store, token, at);
    if (!user) throw invitationGone();
    return user;
  };

  app.post(
    `${P}/invitations/passkey/options`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'Options for navigator.credentials.create() to register a passkey with an invitation.',
        body: z.object({ token: InvitationToken }),
        response: { 200: PasskeyOptions, 409: ErrorSchema, ...publicErrors },
      },
    },
    async (request) => registrationOptions(services, request, await passkeySubject(request.body.token)),
  );

  app.post(
    `${P}/invitations/passkey`,
    {
      ...publicPost,
      schema: {
        ...publicRoute,
        summary: 'Accept an invitation by registering a passkey (the attestation of navigator.credentials.create()): signs in.',
        body: z.object({
          token: InvitationToken,
          challenge_token: z.string().min(1).max(2048),
          name: z.string().trim().min(1).max(100).optional(),
          response: RegistrationResponse,
        }),
        response: { 200: SessionAnswer, 409: ErrorSchema, ...publicErrors },
      },
    },
    async (request, reply) => {
      const { token } = request.body;
      const subject = await passkeySubject(token);
      const passkey = await verifiedRegistration(services, request, { userId: subject.id, challengeToken: request.body.challenge_token, response: request.body.response, name: request.body.name });
      const ctx = manageContext(services, request);
      const accepted = parseMembershipInvitationToken(token)
        ? await acceptMembershipInvitationWithNewAccount(ctx, token, { passkey })
        : await acceptInvitationWithPasskey(ctx, token, passkey);
      return signIn(request, reply, accepted, 'invitation');
    },
  );

  app.get(
    `${P}/invitations`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: "The signed-in person's pending invitations to organizations, to accept or decline.",
        response: { 200: z.object({ data: z.array(PendingInvitation) }), ...manageErrors },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const now = Math.floor(services.clock() / 1000);
      const docs = await services.readStore.find<InvitationDoc>(INVITATIONS, { filter: { email: s.email }, sort: [['invited_at', -1]], limit: 200 });
      const data = [];
      for (const doc of docs) {
        if (doc.expires_at <= now || s.memberships.includes(doc.organization_id)) continue;
        const org = await services.readStore.get<OrganizationDoc>(ORGANIZATIONS, doc.organization_id);
        if (org) data.push({ id: doc.id, organization: { id: org.id, name: org.name }, role: doc.role, invited_at: doc.invited_at, expires_at: doc.expires_at });
      }
      return { data };
    },
  );

  const InvitationParams = z.object({ invitation: Id });

  app.post(
    `${P}/invitations/:invitation/accept`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Accept an invitation of your own email with its link: you join the organization (with the role it names) and work in it.',
        description:
          "The link's token proves the invitation reached the person it was sent to: an account is made by whoever holds a link for an email that has none, so the account's email alone proves nothing to another organization.",
        params: InvitationParams,
        body: z.object({ token: InvitationToken.describe('The token from the invitation link’s fragment.') }),
        response: { 200: SessionAnswer, 410: ErrorSchema, ...manageErrors },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const link = parseMembershipInvitationToken(request.body.token);
      if (!link || link.invitationId !== request.params.invitation) throw invitationGone();
      const user = await acceptMembershipInvitation(manageContext(services, request), s.userId, request.params.invitation, link.tokenHash);
      return currentSessionAnswer(s, user);
    },
  );

  app.post(
    `${P}/invitations/:invitation/decline`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Decline an invitation of your own email.',
        params: InvitationParams,
        body: z.object({}).optional(),
        response: { 204: z.null(), ...manageErrors },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      await declineMembershipInvitation(manageContext(services, request), s.userId, request.params.invitation);
      return reply.code(204).send(null);
    },
  );

  app.get(
    `${P}/session`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'The signed-in user, the current organization and the others, and the CSRF token.',
        response: { 200: SessionAnswer, ...manageErrors },
      },
    },
    async (request) => {
      const s = requireSession(request);
      return currentSessionAnswer(s, await loadUser(services.store, s.userId));
    },
  );

  app.post(
    `${P}/sign-out`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: 'End this session and clear its cookie.', response: { 204: z.null(), ...manageErrors } },
    },
    async (request, reply) => {
      const s = requireSession(request);
      await endSession(manageContext(services, request), s.sessionId, 'sign_out', s.userId);
      clearSessionCookie(request, reply);
      return reply.code(204).send(null);
    },
  );

  app.put(
    `${P}/session/organization`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Switch the organization the user works in (one of theirs).',
        body: z.object({ organization_id: Id }),
        response: { 200: SessionAnswer, ...manageErrors },
      },
    },
    async (request) => {
      const s = requireSession(request);
      const user = await switchOrganization(manageContext(services, request), s.userId, request.body.organization_id);
      return currentSessionAnswer(s, user);
    },
  );

  app.get(
    `${P}/sessions`,
    {
      onRequest: app.authenticateSession,
      schema: { ...manageRoute, summary: "The user's live sessions, newest first.", response: { 200: z.object({ data: z.array(UserSession) }), ...manageErrors } },
    },
    async (request) => {
      const s = requireSession(request);
      const now = Math.floor(services.clock() / 1000);
      const docs = await services.readStore.find<UserSessionDoc>(USER_SESSIONS, {
        filter: { user_id: s.userId, ended_at: null },
        sort: [['signed_in_at', -1]],
        limit: 200,
      });
      return {
        data: docs
          .filter((d) => now < d.absolute_expires_at && now < d.last_seen_at + d.idle_timeout)
          .map((d) => ({
            id: d.id,
            current: d.id === s.sessionId,
            method: d.method,
            ip: d.ip,
            user_agent: d.user_agent,
            signed_in_at: d.signed_in_at,
            last_seen_at: d.last_seen_at,
            expires_at: Math.min(d.absolute_expires_at, d.last_seen_at + d.idle_timeout),
          })),
      };
    },
  );

  app.delete(
    `${P}/sessions/:session`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Revoke one of your sessions (another user\'s session id answers 404).',
        params: z.object({ session: Id }),
        response: { 204: z.null(), ...manageErrors },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      await revokeOwnSession(manageContext(services, request), s.userId, request.params.session);
      if (request.params.session === s.sessionId) clearSessionCookie(request, reply);
      return reply.code(204).send(null);
    },
  );
};
