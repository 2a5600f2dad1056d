import { generateRegistrationOptions, verifyRegistrationResponse, type RegistrationResponseJSON } from '@simplewebauthn/server';
import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import type { Services } from '../../../platform/runtime/index.ts';
import { baseUrl } from '../../../platform/http/index.ts';
import { HttpError } from '../../../platform/http/index.ts';

/**
 * The relying party is the service's own origin: BASE_URL when set, else the request's host
 * (an RP ID is a host name, without port; browsers accept `localhost` over http).
 */
export function relyingParty(services: Services, request: FastifyRequest): { rpID: string; origin: string; rpName: string } {
  const origin = new URL(baseUrl(services, request)).origin;
  return { rpID: new URL(origin).hostname, origin, rpName: 'Commerce service' };
}

const CHALLENGE_TTL_SECONDS = 300;
const AUDIENCE = 'commerce-webauthn-challenge';

/**
 * The challenge travels back to the client inside a signed, short-lived token rather than in
 * server memory, so any API process can finish the ceremony another began. It names its purpose
 * (and, for registration, the user), so a challenge of one ceremony cannot serve another.
 */
export async function challengeToken(services: Services, challenge: string, purpose: 'register' | 'authenticate', subject: string): Promise<string> {
  const now = Math.floor(services.clock() / 1000);
  return new SignJWT({ chal: challenge, purpose })
    .setProtectedHeader({ alg: 'HS256', typ: 'webauthn-challenge+jwt' })
    .setSubject(subject)
    .setAudience(AUDIENCE)
    .setIssuedAt(now)
    .setExpirationTime(now + CHALLENGE_TTL_SECONDS)
    .sign(services.secrets.jwt);
}

const challengeInvalid = () => new HttpError(422, 'challenge_invalid', 'The passkey challenge is invalid or has expired.', { challenge_token: ['The passkey challenge is invalid or has expired.'] });

export async function readChallengeToken(
  services: Services,
  token: string,
  purpose: 'register' | 'authenticate',
  subject: string,
): Promise<string> {
  try {
    const { payload } = await jwtVerify(token, services.secrets.jwt, {
      audience: AUDIENCE,
      typ: 'webauthn-challenge+jwt',
      currentDate: new Date(services.clock()),
    });
    if (payload.purpose !== purpose || payload.sub !== subject || typeof payload.chal !== 'string') throw challengeInvalid();
    return payload.chal;
  } catch (error) {
    if (error instanceof HttpError) throw error;
    throw challengeInvalid();
  }
}

/**
 * Options for `navigator.credentials.create()` to register a passkey of this user (an invitation's
 * or a signed-in person's), and the challenge token the answer must carry back.
 */
export async function registrationOptions(
  services: Services,
  request: FastifyRequest,
  user: { id: string; email: string; passkeys: readonly { credential_id: string; transports: readonly string[] }[] },
): Promise<{ options: Record<string, unknown>; challenge_token: string }> {
  const { rpID, rpName } = relyingParty(services, request);
  const options = await generateRegistrationOptions({
    rpName,
    rpID,
    userName: user.email,
    userID: new TextEncoder().encode(user.id),
    attestationType: 'none',
    excludeCredentials: user.passkeys.map((p) => ({ id: p.credential_id, transports: p.transports as never })),
    authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
  });
  return { options: options as unknown as Record<string, unknown>, challenge_token: await challengeToken(services, options.challenge, 'register', user.id) };
}

/**
 * The passkey a registration answer proves, checked against the challenge its token carries for
 * this user; 422 `passkey_invalid` when it does not verify.
 */
export async function verifiedRegistration(
  services: Services,
  request: FastifyRequest,
  answer: { userId: string; challengeToken: string; response: unknown; name: string | undefined },
): Promise<{ credential_id: string; public_key: string; counter: number; transports: string[]; name: string }> {
  const expectedChallenge = await readChallengeToken(services, answer.challengeToken, 'register', answer.userId);
  const { rpID, origin } = relyingParty(services, request);
  const refused = () => new HttpError(422, 'passkey_invalid', 'The passkey could not be verified.', { response: ['The passkey could not be verified.'] });
  let verification;
  try {
    verification = await verifyRegistrationResponse({
      response: answer.response as RegistrationResponseJSON,
      expectedChallenge,
      expectedOrigin: origin,
      expectedRPID: rpID,
      requireUserVerification: false,
    });
  } catch {
    throw refused();
  }
  if (!verification.verified) throw refused();
  const { credential } = verification.registrationInfo;
  return {
    credential_id: credential.id,
    public_key: Buffer.from(credential.publicKey).toString('base64url'),
    counter: credential.counter,
    transports: credential.transports ?? [],
    name: answer.name ?? 'Passkey',
  };
}
