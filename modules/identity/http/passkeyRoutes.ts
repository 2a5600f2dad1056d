import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { addPasskey, loadUser, removePasskey } from '../accountCommands.ts';
import { USERS, type UserDoc } from '../identityProjection.ts';
import { unauthenticated } from '../../../platform/http/index.ts';
import { requireSession } from './sessionAuth.ts';
import { Passkey } from './identitySchemas.ts';
import { manageContext } from '../../../platform/http/index.ts';
import { manageErrors, manageRoute, RegistrationResponse } from '../../../platform/http/index.ts';
import { registrationOptions, verifiedRegistration } from './webauthn.ts';

const P = '/manage/api/passkeys';

const CredentialId = z.object({ id: z.string().min(1).max(1024).regex(/^[A-Za-z0-9_-]+$/, 'must be base64url') });

/** The signed-in person's own passkeys: list, add (a WebAuthn registration), remove. */
export const passkeyRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  /** The signed-in person as their stream says (a removal or a passkey change counts at once). */
  const signedInUser = async (request: Parameters<typeof requireSession>[0]) => {
    const user = await loadUser(services.store, requireSession(request).userId);
    if (!user) throw unauthenticated();
    return user;
  };

  app.get(
    P,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: 'Your passkeys (never their keys).', response: { 200: z.object({ data: z.array(Passkey) }), ...manageErrors } } },
    async (request) => {
      // The stream says which passkeys there are; the read model adds when each was last used.
      const user = await signedInUser(request);
      const doc = await services.readStore.get<UserDoc>(USERS, user.id);
      const lastUsed = new Map((doc?.passkeys ?? []).map((p) => [p.credential_id, p.last_used_at]));
      return { data: user.passkeys.map((p) => ({ id: p.credential_id, name: p.name, registered_at: p.registered_at, last_used_at: lastUsed.get(p.credential_id) ?? null })) };
    },
  );

  app.post(
    `${P}/options`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Options for navigator.credentials.create() to add a passkey, with the challenge token to send back.',
        body: z.object({}).optional(),
        response: { 200: z.object({ options: z.record(z.string(), z.unknown()), challenge_token: z.string() }), ...manageErrors },
      },
    },
    async (request) => {
      return registrationOptions(services, request, await signedInUser(request));
    },
  );

  app.post(
    P,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Add a passkey: the attestation of navigator.credentials.create().',
        body: z.object({ challenge_token: z.string().min(1).max(2048), name: z.string().trim().min(1).max(100).optional(), response: RegistrationResponse }),
        response: { 201: Passkey, ...manageErrors },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      const passkey = await verifiedRegistration(services, request, { userId: s.userId, challengeToken: request.body.challenge_token, response: request.body.response, name: request.body.name });
      const added = await addPasskey(manageContext(services, request), s.userId, passkey);
      return reply.code(201).send({ id: added.credential_id, name: added.name, registered_at: added.registered_at, last_used_at: null });
    },
  );

  app.delete(
    `${P}/:id`,
    {
      onRequest: app.authenticateSession,
      schema: {
        ...manageRoute,
        summary: 'Remove one of your passkeys (409 last_credential when it is your only way to sign in).',
        params: CredentialId,
        response: { 204: z.null(), ...manageErrors },
      },
    },
    async (request, reply) => {
      const s = requireSession(request);
      await removePasskey(manageContext(services, request), s.userId, request.params.id);
      return reply.code(204).send(null);
    },
  );
};
