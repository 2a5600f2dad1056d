import { checkRedirectOrigins, isRedirectUrl, type RedirectUrls } from './redirectUrls.ts';
import { type Decider, type DomainEvent, conflict, invalid, notFound, MAX_AMOUNT } from '../../../platform/domain/index.ts';

/** What a hosted checkout page needs to look like the seller's brand. Colors are #rrggbb. */
export type OfferTheme = {
  primary_color: string;
  background_color: string;
  text_color: string;
  font_family: string;
  logo_url: string | null;
  button_text: string;
};

export type OfferBlock =
  | { type: 'heading'; text: string }
  | { type: 'text'; text: string }
  | { type: 'image'; url: string; alt: string }
  | { type: 'features'; items: string[] }
  | { type: 'price' };

export type OfferPageType = 'checkout' | 'upsell' | 'thank_you';

export type OfferPage = { id: string; type: OfferPageType; title: string; blocks: OfferBlock[] };

export type OfferCharge = { id: string; name: string; amount: number };

/** The product plan an offer sells, as it stood when the offer was imported. */
export type OfferPlan = {
  product_id: string;
  plan_id: string;
  plan_name: string;
  charges: OfferCharge[];
};

export type OfferStatus = 'draft' | 'published' | 'archived';

export type OfferContent = {
  name: string;
  theme: OfferTheme;
  pages: OfferPage[];
  plan: OfferPlan;
  currency: string;
  /**
   * The seller's shop (http or https): the thank-you page links back to it. Optional, and left out
   * of events when absent, so offers written before it existed read the same.
   */
  shop_url?: string | null;
  /**
   * Origins (`https://shop.example`) a public caller may send success_url and cancel_url on when
   * it creates a session; a seller's bearer call may send any. Left out of events when empty.
   */
  allowed_redirect_origins?: string[];
  /**
   * Days of free trial before the first charge, as Stripe's: 1 to 730, for a recurring plan only
   * (the import and the management routes check the plan). Left out of events when absent.
   */
  trial_period_days?: number | null;
  /**
   * A coupon of the seller's (modules/discounts) every session of the offer starts with, when it
   * can apply then; a code the buyer types replaces it. Left out of events when absent.
   */
  coupon?: string | null;
} & RedirectUrls;

/** Stripe's ceiling for a trial: two years. */
export const MAX_TRIAL_DAYS = 730;

/** Why an offer of a plan of this type cannot have a trial; null when it can. A plan's type defaults to recurring. */
export const trialProblem = (planName: string, planType: string | undefined) =>
  (planType ?? 'recurring') === 'recurring' ? null : `Plan ${planName} is not recurring: only a subscription has a trial (leave trial_period_days out).`;

export type OfferEvent =
  | DomainEvent<
      'OfferCreated',
      OfferContent & { uuid: string; id: number; organization_id: string; slug: string; price: number; created_at: number }
    >
  | DomainEvent<'OfferUpdated', OfferContent & { price: number; updated_at: number }>
  | DomainEvent<'OfferPublished', { published_at: number }>
  | DomainEvent<'OfferArchived', { archived_at: number }>;

export type OfferCommand =
  | ({ type: 'CreateOffer'; uuid: string; id: number; organizationId: string; slug: string; now: number } & OfferContent)
  | ({ type: 'UpdateOffer'; organizationId: string; now: number } & OfferContent)
  | { type: 'PublishOffer'; now: number }
  | { type: 'ArchiveOffer'; now: number };

export type OfferState =
  | { status: 'none' }
  | ({
      status: OfferStatus;
      uuid: string;
      id: number;
      organizationId: string;
      slug: string;
      price: number;
      publishedAt: number | null;
      archivedAt: number | null;
    } & OfferContent);

export const offerStream = (uuid: string) => `offer-${uuid}`;
/** Slugs are unique across organizations (the public routes find offers by slug alone). */
export const offerSlugStream = (slug: string) => `offer_slug-${slug}`;

export const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;
const CURRENCY = /^[A-Z]{3}$/;

/** The price of an offer: the sum of its plan's charges, in minor units. */
export const offerPrice = (plan: OfferPlan) => plan.charges.reduce((sum, c) => sum + c.amount, 0);

/** An absolute http(s) URL without credentials, as a link on the thank-you page may be. */
export function isShopUrl(value: string): boolean {
  if (value.length > 2000 || !URL.canParse(value)) return false;
  const url = new URL(value);
  return (url.protocol === 'https:' || url.protocol === 'http:') && url.username === '' && url.password === '';
}

/** The shop URL as events carry it: only when there is one. */
const shopUrlField = (shopUrl: string | null | undefined) => (shopUrl ? { shop_url: shopUrl } : {});

/** The trial as events carry it: only when there is one. */
const trialField = (days: number | null | undefined) => (days ? { trial_period_days: days } : {});

/** The attached coupon as events carry it: only when there is one. */
const couponField = (coupon: string | null | undefined) => (coupon ? { coupon } : {});

/** Only the redirect URLs and origins that are set: offers without them keep recording (and comparing) what they did. */
function redirects(content: RedirectUrls & { allowed_redirect_origins?: string[] | undefined }): RedirectUrls & { allowed_redirect_origins?: string[] } {
  return {
    ...(content.success_url ? { success_url: content.success_url } : {}),
    ...(content.cancel_url ? { cancel_url: content.cancel_url } : {}),
    ...(content.allowed_redirect_origins?.length ? { allowed_redirect_origins: content.allowed_redirect_origins } : {}),
  };
}

function checkContent(content: OfferContent): void {
  for (const field of ['success_url', 'cancel_url'] as const) {
    const url = content[field];
    if (url && !isRedirectUrl(url)) throw invalid('invalid_redirect_url', `The ${field} field must be an http or https URL.`, field);
  }
  checkRedirectOrigins(content.allowed_redirect_origins);
  if (content.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
  if (content.shop_url && !isShopUrl(content.shop_url)) {
    throw invalid('invalid_shop_url', 'The shop_url field must be an http or https URL, such as https://shop.example.com.', 'shop_url');
  }
  const trial = content.trial_period_days;
  if (trial !== undefined && trial !== null && (!Number.isInteger(trial) || trial < 1 || trial > MAX_TRIAL_DAYS)) {
    throw invalid('invalid_trial', `The trial_period_days field must be a whole number of days from 1 to ${MAX_TRIAL_DAYS}.`, 'trial_period_days');
  }
  if (!HEX_COLOR.test(content.theme.primary_color)) {
    throw invalid('invalid_theme', 'The theme.primary_color field must be a hex color like #1a2b3c.', 'theme.primary_color');
  }
  if (!CURRENCY.test(content.currency)) throw invalid('invalid_currency', 'The currency must be an ISO 4217 code.', 'currency');
  if (content.plan.charges.length === 0) throw invalid('plan_without_charges', 'The plan has no charges to sell.', 'plan');
  if (content.plan.charges.some((c) => !Number.isSafeInteger(c.amount) || c.amount < 0)) {
    throw invalid('invalid_charge', 'Charge amounts must be non-negative integers in minor units.', 'plan');
  }
  if (offerPrice(content.plan) > MAX_AMOUNT) {
    throw invalid('invalid_charge', `The plan's charges must add up to at most ${MAX_AMOUNT} minor units.`, 'plan');
  }
  if (!content.pages.some((p) => p.type === 'checkout')) {
    throw invalid('no_checkout_page', 'An offer needs at least one page of type checkout.', 'pages');
  }
  const ids = new Set(content.pages.map((p) => p.id));
  if (ids.size !== content.pages.length) throw invalid('duplicate_page_id', 'Page ids must be unique within an offer.', 'pages');
}

export const offerDecider: Decider<OfferState, OfferCommand, OfferEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OfferCreated': {
        const d = event.data;
        return {
          status: 'draft',
          uuid: d.uuid,
          id: d.id,
          organizationId: d.organization_id,
          slug: d.slug,
          name: d.name,
          theme: d.theme,
          pages: d.pages,
          plan: d.plan,
          price: d.price,
          currency: d.currency,
          shop_url: d.shop_url ?? null,
          trial_period_days: d.trial_period_days ?? null,
          coupon: d.coupon ?? null,
          ...redirects(d),
          publishedAt: null,
          archivedAt: null,
        };
      }
      case 'OfferUpdated': {
        if (state.status === 'none') return state;
        const { updated_at: _at, ...content } = event.data;
        // An update without shop_url, a redirect URL or allowed origins removed them.
        const { success_url: _s, cancel_url: _c, allowed_redirect_origins: _o, ...kept } = state;
        return { ...kept, ...content, shop_url: content.shop_url ?? null, trial_period_days: content.trial_period_days ?? null, coupon: content.coupon ?? null };
      }
      case 'OfferPublished':
        return state.status === 'none' ? state : { ...state, status: 'published', publishedAt: event.data.published_at };
      case 'OfferArchived':
        return state.status === 'none' ? state : { ...state, status: 'archived', archivedAt: event.data.archived_at };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateOffer': {
        if (state.status !== 'none') throw conflict('offer_exists', 'The offer already exists.');
        if (!SLUG.test(command.slug) || command.slug.length > 100) {
          throw invalid('invalid_slug', 'The slug must be lower-case letters, digits and single dashes (at most 100).', 'slug');
        }
        checkContent(command);
        const { name, theme, pages, plan, currency, shop_url, trial_period_days, coupon } = command;
        return {
          type: 'OfferCreated',
          data: {
            uuid: command.uuid,
            id: command.id,
            organization_id: command.organizationId,
            slug: command.slug,
            name,
            theme,
            pages,
            plan,
            price: offerPrice(plan),
            currency,
            ...shopUrlField(shop_url),
            ...trialField(trial_period_days),
            ...couponField(coupon),
            ...redirects(command),
            created_at: command.now,
          },
        };
      }
      case 'UpdateOffer': {
        if (state.status === 'none' || state.organizationId !== command.organizationId) throw notFound('Offer');
        const { name, theme, pages, plan, currency, shop_url, trial_period_days, coupon } = command;
        const next = { name, theme, pages, plan, price: offerPrice(plan), currency, ...shopUrlField(shop_url), ...trialField(trial_period_days), ...couponField(coupon), ...redirects(command) };
        const current = {
          name: state.name,
          theme: state.theme,
          pages: state.pages,
          plan: state.plan,
          price: state.price,
          currency: state.currency,
          ...shopUrlField(state.shop_url),
          ...trialField(state.trial_period_days),
          ...couponField(state.coupon),
          ...redirects(state),
        };
        if (JSON.stringify(next) === JSON.stringify(current)) return [];
        if (state.status === 'archived') throw conflict('offer_archived', 'The offer is archived and can no longer change.');
        checkContent(command);
        return { type: 'OfferUpdated', data: { ...next, updated_at: command.now } };
      }
      case 'PublishOffer':
        if (state.status === 'none') throw notFound('Offer');
        if (state.status === 'archived') throw conflict('offer_archived', 'An archived offer cannot be published again.');
        if (state.status === 'published') return [];
        return { type: 'OfferPublished', data: { published_at: command.now } };
      case 'ArchiveOffer':
        if (state.status === 'none') throw notFound('Offer');
        if (state.status === 'archived') return [];
        return { type: 'OfferArchived', data: { archived_at: command.now } };
    }
  },
};
