import { createHmac, timingSafeEqual } from 'node:crypto';
import { deriveKey } from '../../platform/lib/index.ts';
import type { Services } from '../../platform/runtime/index.ts';

/** How long a buyer's download link works. */
export const DOWNLOAD_LINK_TTL_SECONDS = 15 * 60;

const keys = new WeakMap<Uint8Array, Buffer>();

/**
 * The key signing download links, derived from the service's signing secret (HKDF, its own
 * label): no secret file of its own, and a link key never opens anything the secret signs.
 */
function linkKey(secrets: Services['secrets']): Buffer {
  let key = keys.get(secrets.jwt);
  if (!key) {
    key = deriveKey(secrets.jwt, 'commerce files: download links');
    keys.set(secrets.jwt, key);
  }
  return key;
}

const signatureOf = (key: Buffer, fileId: string, customerId: string, expires: number) =>
  createHmac('sha256', key).update(`download\n${fileId}\n${customerId}\n${expires}`).digest('base64url');

export type DownloadLinkInput = { organizationId: string; fileId: string; customerId: string };

/**
 * The buyer's link to a granted file (`/downloads/…`), working for 15 minutes: mint a fresh one
 * whenever a page is shown, since a link in an email would be dead before it is read.
 */
export function downloadUrl(services: Pick<Services, 'secrets' | 'clock'>, input: DownloadLinkInput): string {
  const expires = Math.floor(services.clock() / 1000) + DOWNLOAD_LINK_TTL_SECONDS;
  const signature = signatureOf(linkKey(services.secrets), input.fileId, input.customerId, expires);
  const query = new URLSearchParams({ customer: input.customerId, expires: String(expires), signature });
  return `/downloads/${encodeURIComponent(input.fileId)}?${query.toString()}`;
}

export type LinkCheck = 'valid' | 'bad' | 'expired';

/** Whether a link is ours (compared in constant time) and still fresh; a bad signature is told before an expiry. */
export function checkDownloadLink(
  services: Pick<Services, 'secrets' | 'clock'>,
  link: { fileId: string; customerId: string; expires: number; signature: string },
): LinkCheck {
  const expected = Buffer.from(signatureOf(linkKey(services.secrets), link.fileId, link.customerId, link.expires));
  const given = Buffer.from(link.signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad';
  return Math.floor(services.clock() / 1000) < link.expires ? 'valid' : 'expired';
}
