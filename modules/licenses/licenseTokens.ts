import { createPrivateKey, createPublicKey, type KeyObject } from 'node:crypto';
import { calculateJwkThumbprint, CompactSign, exportJWK, type JWK } from 'jose';
import { deriveKey } from '../../platform/lib/index.ts';

/** How long an app may trust a validation offline before asking again. */
export const TOKEN_TTL_SECONDS = 7 * 86_400;

/** PKCS#8 wrapping of a raw Ed25519 seed (RFC 8410), so node:crypto takes the derived 32 bytes as a key. */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

export type LicenseTokenSigner = {
  sign(claims: Record<string, unknown>, iat: number, exp: number): Promise<string>;
  jwks: { keys: JWK[] };
};

const signers = new WeakMap<Uint8Array, Promise<LicenseTokenSigner>>();

/**
 * The Ed25519 key validation answers are signed with, derived (HKDF) from the service's secret: no key
 * file, and every process signs alike. Published as a JWKS, its `kid` the RFC 7638 thumbprint.
 */
export function licenseTokenSigner(serviceSecret: Uint8Array): Promise<LicenseTokenSigner> {
  let signer = signers.get(serviceSecret);
  if (!signer) signers.set(serviceSecret, (signer = makeSigner(serviceSecret)));
  return signer;
}

async function makeSigner(serviceSecret: Uint8Array): Promise<LicenseTokenSigner> {
  const seed = deriveKey(serviceSecret, 'commerce license validation tokens ed25519');
  const privateKey: KeyObject = createPrivateKey({ key: Buffer.concat([ED25519_PKCS8_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  const jwk = await exportJWK(createPublicKey(privateKey));
  const kid = await calculateJwkThumbprint(jwk);
  const publicJwk: JWK = { ...jwk, kid, alg: 'EdDSA', use: 'sig' };
  const header = { alg: 'EdDSA', kid, typ: 'JWT' };
  // Ed25519 is deterministic: the same claims in the same second give the same token, so an app
  // (or a fleet of them) asking again within that second is answered without signing again.
  let second = -1;
  const signed = new Map<string, Promise<string>>();
  return {
    jwks: { keys: [publicJwk] },
    sign(claims, iat, exp) {
      const payload = JSON.stringify({ ...claims, iat, exp });
      if (iat !== second || signed.size >= 10_000) {
        second = iat;
        signed.clear();
      }
      let token = signed.get(payload);
      if (!token) signed.set(payload, (token = new CompactSign(Buffer.from(payload)).setProtectedHeader(header).sign(privateKey)));
      return token;
    },
  };
}
