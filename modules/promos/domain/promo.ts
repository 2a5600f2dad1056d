import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, invalid, notFound } from '../../../platform/domain/index.ts';
import { MAX_AMOUNT } from '../../../platform/domain/index.ts';

/**
 * A tier prices the offer (a fixed `price` in minor units, or `discount_percent` off the offer's
 * price) while it lasts: until the unix time `until`, and/or while the promo has fewer than
 * `max_participants` participants in total (a cumulative threshold: "first 100 buyers").
 */
export type PromoTier = {
  name: string;
  price: number | null;
  discount_percent: number | null;
  until: number | null;
  max_participants: number | null;
};

/**
 * The slugs of the offers a promo prices, or null for every offer of its organization. Recorded
 * since promos name them; a promo recorded before has none (read as null).
 */
export type PromoOffers = string[] | null;

export type PromoEvent =
  | DomainEvent<
      'PromoCreated',
      {
        slug: string;
        organization_id: string;
        name: string;
        starts_at: number;
        ends_at: number;
        tiers: PromoTier[];
        offers?: PromoOffers;
        created_at: number;
      }
    >
  | DomainEvent<'PromoUpdated', { name: string; starts_at: number; ends_at: number; tiers: PromoTier[]; offers?: PromoOffers; updated_at: number }>
  | DomainEvent<'PromoParticipantEnrolled', { email: string; reference: string | null; enrolled_at: number; workflow_id: number | null }>;

export type PromoCommand =
  | { type: 'CreatePromo'; slug: string; organizationId: string; name: string; startsAt: number; endsAt: number; tiers: PromoTier[]; offers: PromoOffers; now: number }
  | { type: 'UpdatePromo'; organizationId: string; name: string; startsAt: number; endsAt: number; tiers: PromoTier[]; offers: PromoOffers; now: number }
  | { type: 'EnrolParticipant'; organizationId: string; email: string; reference: string | null; workflowId: number | null; now: number };

/**
 * The emails enrolled so far, newest first, as an immutable chain: adding one shares every earlier
 * link, so folding N enrolments takes N steps (a Set copied per event would take N²/2).
 */
export type Enrolled = { readonly email: string; readonly earlier: Enrolled } | null;

export function isEnrolled(enrolled: Enrolled, email: string): boolean {
  for (let link = enrolled; link !== null; link = link.earlier) if (link.email === email) return true;
  return false;
}

export type PromoState =
  | { status: 'none' }
  | {
      status: 'created';
      slug: string;
      name: string;
      organizationId: string;
      startsAt: number;
      endsAt: number;
      tiers: PromoTier[];
      offers: PromoOffers;
      enrolled: Enrolled;
    };

export const promoStream = (slug: string) => `promo-${slug}`;
export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
/**
 * Without the characters an address may only hold inside quotes, so a JSON array or object that
 * merely contains an address (a webhook's `["a@b.co"]`) is not taken for one.
 */
const EMAIL = /^[^\s@"(),:;<>[\]\\]+@[^\s@"(),:;<>[\]\\]+\.[^\s@"(),:;<>[\]\\]+$/;
/** RFC 5321's limit on a path. */
export const MAX_EMAIL_LENGTH = 254;

/**
 * Length first: EMAIL backtracks quadratically on a long string of dots, and an email can come
 * from a webhook body of up to 1 MiB.
 */
export const isEmail = (email: string): boolean => email.length <= MAX_EMAIL_LENGTH && EMAIL.test(email);

export const promoDecider: Decider<PromoState, PromoCommand, PromoEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'PromoCreated': {
        const d = event.data;
        return {
          status: 'created',
          slug: d.slug,
          name: d.name,
          organizationId: d.organization_id,
          startsAt: d.starts_at,
          endsAt: d.ends_at,
          tiers: d.tiers,
          offers: d.offers ?? null,
          enrolled: null,
        };
      }
      case 'PromoUpdated': {
        const d = event.data;
        return state.status === 'none' ? state : { ...state, startsAt: d.starts_at, endsAt: d.ends_at, tiers: d.tiers, offers: d.offers ?? null, name: d.name };
      }
      case 'PromoParticipantEnrolled':
        return state.status === 'none' ? state : { ...state, enrolled: { email: event.data.email, earlier: state.enrolled } };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreatePromo':
        if (state.status !== 'none') throw conflict('promo_exists', 'The promo already exists.');
        checkPromo(command);
        return {
          type: 'PromoCreated',
          data: {
            slug: command.slug,
            organization_id: command.organizationId,
            name: command.name,
            starts_at: command.startsAt,
            ends_at: command.endsAt,
            tiers: command.tiers,
            offers: command.offers,
            created_at: command.now,
          },
        };
      case 'UpdatePromo': {
        if (state.status === 'none' || state.organizationId !== command.organizationId) throw notFound('Promo');
        checkPromo({ ...command, type: 'CreatePromo', slug: state.slug });
        const same =
          state.name === command.name &&
          state.startsAt === command.startsAt &&
          state.endsAt === command.endsAt &&
          JSON.stringify(state.tiers) === JSON.stringify(command.tiers) &&
          JSON.stringify(state.offers) === JSON.stringify(command.offers);
        if (same) return [];
        return {
          type: 'PromoUpdated',
          data: { name: command.name, starts_at: command.startsAt, ends_at: command.endsAt, tiers: command.tiers, offers: command.offers, updated_at: command.now },
        };
      }
      case 'EnrolParticipant': {
        // Another organization's promo is as unknown as a missing one.
        if (state.status === 'none' || state.organizationId !== command.organizationId) throw notFound('Promo');
        const email = command.email.trim().toLowerCase();
        if (!isEmail(email)) throw invalid('invalid_email', 'The email must be a valid email address.', 'email');
        if (command.now >= state.endsAt) throw conflict('promo_ended', 'The promo has ended.');
        if (isEnrolled(state.enrolled, email)) return [];
        return {
          type: 'PromoParticipantEnrolled',
          data: { email, reference: command.reference, enrolled_at: command.now, workflow_id: command.workflowId },
        };
      }
    }
  },
};

export const FIXED_PRICE_NEEDS_OFFERS =
  'A promo with a fixed price tier must name the offers it prices (offers: their slugs); only a promo of discount_percent tiers may price every offer.';

function checkPromo(c: Extract<PromoCommand, { type: 'CreatePromo' }>): void {
  if (!SLUG.test(c.slug) || c.slug.length > 100) throw invalid('invalid_slug', 'The slug must be lower-case letters, digits and dashes.', 'slug');
  if (c.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
  if (!(c.endsAt > c.startsAt)) throw invalid('invalid_ends_at', 'The ends_at must be after starts_at.', 'ends_at');
  if (c.tiers.length === 0) throw invalid('invalid_tiers', 'The tiers field must have at least 1 item.', 'tiers');
  if (c.offers !== null) {
    if (c.offers.length === 0) throw invalid('invalid_offers', 'The offers field must name at least 1 offer, or be left out.', 'offers');
    if (c.offers.some((slug) => typeof slug !== 'string' || slug === '')) throw invalid('invalid_offers', 'The offers field must hold offer slugs.', 'offers');
  }
  // The session route takes any promo slug from the buyer: a fixed price that priced every offer
  // of the organization would sell a 999.00 offer for the 1.00 meant for another one.
  if (c.offers === null && c.tiers.some((t) => t.price !== null)) {
    throw invalid('offers_required', FIXED_PRICE_NEEDS_OFFERS, 'offers');
  }
  c.tiers.forEach((t, i) => {
    if ((t.price === null) === (t.discount_percent === null)) {
      throw invalid('invalid_tier', 'Each tier needs either a price or a discount_percent.', `tiers.${i}`);
    }
    if (t.price !== null && (!Number.isInteger(t.price) || t.price < 0 || t.price > MAX_AMOUNT)) {
      throw invalid('invalid_tier', `The price must be a non-negative integer of at most ${MAX_AMOUNT} (minor units).`, `tiers.${i}.price`);
    }
    if (t.discount_percent !== null && !(t.discount_percent > 0 && t.discount_percent <= 100)) {
      throw invalid('invalid_tier', 'The discount_percent must be above 0 and at most 100.', `tiers.${i}.discount_percent`);
    }
    if (t.max_participants !== null && (!Number.isInteger(t.max_participants) || t.max_participants < 1)) {
      throw invalid('invalid_tier', 'The max_participants must be a positive integer.', `tiers.${i}.max_participants`);
    }
  });
}
