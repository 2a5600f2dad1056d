import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { PromoEvent } from './domain/promo.ts';
import type { Projection } from '../../platform/es/index.ts';

export const PROMOS = 'promos';
export const PROMO_PARTICIPANTS = 'promo_participants';

/** `offers` is absent on a promo recorded before promos named their offers (read as null). */
export type PromoDoc = Extract<PromoEvent, { type: 'PromoCreated' }>['data'] & { id: string; participants_count: number };
export type ParticipantDoc = { id: string; slug: string; email: string; reference: string | null; enrolled_at: number };

/** Promos with their participant count (what the public route and pricing read), and participants. */
export const promoProjection: Projection = {
  name: 'promos',
  collections: [PROMOS, PROMO_PARTICIPANTS],
  indexes: [
    { collection: PROMOS, fields: ['organization_id'] },
    { collection: PROMO_PARTICIPANTS, fields: ['slug'] },
  ],
  eventTypes: ['PromoCreated', 'PromoUpdated', 'PromoParticipantEnrolled'],
  async apply(recorded: RecordedEvent, tx) {
    const event = recorded as unknown as PromoEvent;
    const slug = recorded.stream.slice('promo-'.length);
    if (event.type === 'PromoCreated') {
      const d = event.data;
      tx.upsert(PROMOS, { id: d.slug, ...d, participants_count: 0 } satisfies PromoDoc);
      return;
    }
    const promo = await tx.get<PromoDoc>(PROMOS, slug);
    if (!promo) return;
    if (event.type === 'PromoUpdated') {
      const { updated_at: _at, ...changes } = event.data;
      tx.upsert(PROMOS, { ...promo, ...changes });
      return;
    }
    tx.upsert(PROMOS, { ...promo, participants_count: promo.participants_count + 1 });
    tx.upsert(PROMO_PARTICIPANTS, {
      id: `${slug}:${event.data.email}`,
      slug,
      email: event.data.email,
      reference: event.data.reference,
      enrolled_at: event.data.enrolled_at,
    } satisfies ParticipantDoc);
  },
};
