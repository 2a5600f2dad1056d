import { hash, randomBytes } from 'node:crypto';
import type { ReadStore } from '../../../platform/readStore/index.ts';
import type { CheckoutInit, PageExtras } from './hostedCheckout/renderCheckoutPage.ts';

/**
 * Drafts of offers being edited, kept for the live preview: short-lived records written directly
 * to the read store (as the OAuth server's are), so every API process behind a load balancer
 * finds the draft another one kept. A draft is found by the SHA-256 of its token, never the token.
 */
export const OFFER_PREVIEWS = 'offer_previews';

/** How long a draft stays viewable. */
export const PREVIEW_TTL_MS = 15 * 60 * 1000;
/** Drafts an organization keeps at most (the oldest go first): an editor sends one per pause in typing. */
const MAX_PER_ORGANIZATION = 50;
/** Expired drafts deleted by each new one, at most: the collection stays bounded without a job. */
const SWEEP = 20;

export type PreviewDraft = { organizationId: string; init: CheckoutInit; extras: PageExtras };

type DraftDoc = { id: string; organization_id: string; init: CheckoutInit; extras: PageExtras; expires_at: number };

const keyOf = (token: string) => hash('sha256', token, 'hex');

export function offerPreviewDrafts(readStore: ReadStore, clock: () => number) {
  let indexed: Promise<void> | null = null;
  const ready = () =>
    (indexed ??= Promise.all([readStore.ensureIndex(OFFER_PREVIEWS, ['expires_at']), readStore.ensureIndex(OFFER_PREVIEWS, ['organization_id', 'expires_at'])]).then(() => undefined));

  return {
    /** Keeps a draft; answers its token and when it expires (Unix ms). */
    async keep(draft: PreviewDraft): Promise<{ token: string; expiresAt: number }> {
      await ready();
      const now = clock();
      for (const old of await readStore.find<DraftDoc>(OFFER_PREVIEWS, { filter: { expires_at: { $lte: now } }, limit: SWEEP })) await readStore.delete(OFFER_PREVIEWS, old.id);
      const kept = await readStore.find<DraftDoc>(OFFER_PREVIEWS, { filter: { organization_id: draft.organizationId }, sort: [['expires_at', 1]] });
      for (const old of kept.slice(0, Math.max(0, kept.length - MAX_PER_ORGANIZATION + 1))) await readStore.delete(OFFER_PREVIEWS, old.id);
      const token = randomBytes(24).toString('base64url');
      const expiresAt = now + PREVIEW_TTL_MS;
      await readStore.upsert(OFFER_PREVIEWS, { id: keyOf(token), organization_id: draft.organizationId, init: draft.init, extras: draft.extras, expires_at: expiresAt } satisfies DraftDoc);
      return { token, expiresAt };
    },

    /** The draft of `token` if it is this organization's and has not expired; another organization's reads as none. */
    async find(token: string, organizationId: string): Promise<PreviewDraft | null> {
      const doc = await readStore.get<DraftDoc>(OFFER_PREVIEWS, keyOf(token));
      if (!doc || doc.organization_id !== organizationId || doc.expires_at <= clock()) return null;
      return { organizationId: doc.organization_id, init: doc.init, extras: doc.extras };
    },
  };
}
