import { jwtVerify } from 'jose';
import type { SessionCustomer } from './domain/checkoutSession.ts';
import { invalid } from '../../platform/domain/index.ts';

/**
 * A customer identified by a signed user token: the service_jwt of /api/users/me (HS256, our
 * issuer). Anything else (bad signature, expired, other algorithm) is refused as invalid input.
 *
 * The token must name the offer's organization in its `org` claim: every organization's tokens are
 * signed with the one service secret, so a signature alone would let one seller's users (and their
 * email) into another seller's sessions. A token of another organization gets exactly the answer of
 * an invalid one, as an id of another organization answers like an unknown id.
 */
export async function customerFromToken(
  token: string,
  secret: Uint8Array,
  nowSeconds: number,
  organizationId: string,
): Promise<SessionCustomer> {
  try {
    const { payload } = await jwtVerify(token, secret, {
      algorithms: ['HS256'],
      issuer: 'commerce-service',
      currentDate: new Date(nowSeconds * 1000),
    });
    if (typeof payload.sub !== 'string') throw new Error('no subject');
    if (payload.org !== organizationId) throw new Error('another organization');
    return { email: typeof payload.email === 'string' ? payload.email : null, name: null, user_id: payload.sub };
  } catch {
    throw invalid('invalid_customer_token', 'The customer token is invalid or expired.', 'customer.token');
  }
}
