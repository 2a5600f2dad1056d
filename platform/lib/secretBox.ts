import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

/**
 * Endpoint signing secrets must be usable for HMAC, so they are stored, not hashed: sealed with
 * AES-256-GCM under a key derived (HKDF) from the service's own secret (JWT_SECRET, or the one
 * generated into the data directory), so the event log and its copies never hold them in plain text.
 */
export type SecretBox = { seal(plain: string): string; open(sealed: string): string };

const VERSION = 'v1';

/** A 32-byte key for one `purpose`, derived (HKDF-SHA256) from the service's secret; purposes never share a key. */
export const deriveKey = (secret: Uint8Array, purpose: string): Buffer =>
  Buffer.from(hkdfSync('sha256', secret, Buffer.alloc(0), purpose, 32));

/** `purpose` keeps keys apart: a secret sealed for one use cannot be opened as another's. */
export function secretBox(serviceSecret: Uint8Array, purpose = 'commerce webhook endpoint secrets'): SecretBox {
  const key = deriveKey(serviceSecret, purpose);
  return {
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const data = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), data.toString('base64url')].join('.');
    },
    open(sealed) {
      const [version, iv, tag, data] = sealed.split('.');
      if (version !== VERSION || !iv || !tag || data === undefined) throw new Error('not a sealed secret');
      const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
    },
  };
}

/** `whsec_` and 32 random bytes in base64, the form the Standard Webhooks libraries take. */
export const generateSigningSecret = () => `whsec_${randomBytes(32).toString('base64')}`;
