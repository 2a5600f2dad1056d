import type { FastifyRequest } from 'fastify';
import { jwtVerify, SignJWT } from 'jose';
import type { Services } from '../../../app/services.ts';
import { baseUrl } from '../../context.ts';
import { HttpError } from '../../errors.ts';

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
