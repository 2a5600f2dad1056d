import type { ReadStore } from '../../platform/readStore/index.ts';
import { PROMO_PARTICIPANTS, PROMOS, type ParticipantDoc, type PromoDoc } from './promoProjection.ts';

/**
 * A GDPR erasure's part in the promos (called by modules/customers): the person's enrolments in
 * the organization's promos read as the placeholder, under the id a rebuild gives them (their
 * `PromoParticipantEnrolled` events are sealed with the person's key, which the erasure destroys).
 */
export async function scrubPromoParticipant(readStore: ReadStore, erased: { organizationId: string; email: string; placeholder: string }): Promise<void> {
  for (const email of new Set([erased.email, erased.email.trim().toLowerCase()])) {
    for (const doc of await readStore.find<ParticipantDoc>(PROMO_PARTICIPANTS, { filter: { email } })) {
      const promo = await readStore.get<PromoDoc>(PROMOS, doc.slug);
      if (promo?.organization_id !== erased.organizationId) continue;
      await readStore.delete(PROMO_PARTICIPANTS, doc.id);
      await readStore.upsert(PROMO_PARTICIPANTS, { ...doc, id: `${doc.slug}:${erased.placeholder}`, email: erased.placeholder } satisfies ParticipantDoc);
    }
  }
}
