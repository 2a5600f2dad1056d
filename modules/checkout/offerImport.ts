import { offerPlanContent } from './offerManagement.ts';
import { DomainError } from '../../platform/domain/index.ts';
import { z } from 'zod';
import { isShopUrl, MAX_TRIAL_DAYS, SLUG, trialProblem, type OfferContent } from './domain/offer.ts';
import { isRedirectUrl, MAX_REDIRECT_ORIGINS, normalizeOrigin } from './domain/redirectUrls.ts';
import { applyEach, filePath, ImportValidationError, importSection, type ImportContext, type ImportIssue } from '../../platform/import/index.ts';
import { reservedSlugMessage } from '../../platform/lib/index.ts';
import { publishOffer, upsertOffer, type OfferSummary } from './offerCommands.ts';

const HEX = /^#[0-9a-fA-F]{6}$/;
const hex = z.string().regex(HEX, 'Must be a hex color such as #1a2b3c.');
const text = (max: number) => z.string().trim().min(1).max(max);
const httpsUrl = z.url({ protocol: /^https?$/ }).max(2000);

/** The theme of the hosted checkout page; everything but primary_color has a default. */
const ThemeImport = z.strictObject({
  primary_color: hex,
  background_color: hex.default('#ffffff'),
  text_color: hex.default('#1f2937'),
  font_family: z
    .string()
    .max(200)
    .regex(/^[A-Za-z0-9 ,'"-]+$/, 'Use a CSS font-family list: letters, digits, spaces, commas, quotes and dashes.')
    .default('system-ui, sans-serif'),
  logo_url: httpsUrl.nullable().default(null),
  button_text: text(60).default('Pay now'),
});

const BlockImport = z.discriminatedUnion('type', [
  z.strictObject({ type: z.literal('heading'), text: text(200) }),
  z.strictObject({ type: z.literal('text'), text: text(5000) }),
  z.strictObject({ type: z.literal('image'), url: httpsUrl, alt: z.string().max(300).default('') }),
  z.strictObject({ type: z.literal('features'), items: z.array(text(300)).min(1).max(50) }),
  z.strictObject({ type: z.literal('price') }),
]);

const PageImport = z.strictObject({
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]{0,63}$/, 'Use lower-case letters, digits, _ and - (at most 64).'),
  type: z.enum(['checkout', 'upsell', 'thank_you']),
  title: text(200),
  blocks: z.array(BlockImport).max(50).default([]),
});

/** Days of free trial before the first charge, as Stripe's; null or absent: none. */
export const TrialPeriodDays = z
  .number()
  .int('trial_period_days must be a whole number of days.')
  .min(1, 'trial_period_days must be at least 1 (leave it out for no trial).')
  .max(MAX_TRIAL_DAYS, `trial_period_days must be at most ${MAX_TRIAL_DAYS}.`)
  .nullable();

const RedirectUrlImport = z.string().refine(isRedirectUrl, 'Use an absolute http or https URL of at most 2048 characters.');

/**
 * Origins a public caller may send success_url and cancel_url on, written as the browser writes
 * them (`HTTPS://Shop.example:443/` becomes `https://shop.example`), each once. Offers and the
 * organization's settings take the same list.
 */
export const RedirectOrigins = z
  .array(
    z
      .string()
      .trim()
      .refine((v) => normalizeOrigin(v) !== null, 'Use an http or https origin such as https://shop.example: scheme, host and port, without a path.')
      .transform((v) => normalizeOrigin(v)!),
  )
  .max(MAX_REDIRECT_ORIGINS)
  .transform((origins) => [...new Set(origins)]);

export const OfferImport = z
  .strictObject({
    slug: z
      .string()
      .max(100)
      .regex(SLUG, 'Use lower-case letters, digits and single dashes.')
      .superRefine((slug, ctx) => {
        const reserved = reservedSlugMessage(slug);
        if (reserved) ctx.addIssue({ code: 'custom', message: reserved });
      }),
    name: text(255),
    product: z.string().min(1).max(128).describe('key of a product in this file or already imported.'),
    plan: z.string().min(1).max(255).describe("name of one of that product's plans."),
    theme: ThemeImport,
    pages: z.array(PageImport).min(1).max(20),
    success_url: RedirectUrlImport.optional().describe('where the full-page checkout sends the buyer after paying; {CHECKOUT_SESSION_ID} is replaced by the session id.'),
    cancel_url: RedirectUrlImport.optional().describe('where the full-page checkout sends the buyer who cancels; {CHECKOUT_SESSION_ID} as in success_url.'),
    allowed_redirect_origins: RedirectOrigins.optional().describe(
      'origins (https://shop.example) a browser or other caller without an API key may send success_url and cancel_url on when it creates a session; none by default.',
    ),
    published: z.boolean().default(false),
    shop_url: httpsUrl
      .refine(isShopUrl, 'shop_url must be an http or https URL without a user name or password, such as https://shop.example.com')
      .optional()
      .describe('Your shop: the thank-you page links back to it.'),
    trial_period_days: TrialPeriodDays.optional().describe('days of free trial before the first charge (1 to 730), for a recurring plan; none by default.'),
    coupon: z
      .string()
      .trim()
      .min(1)
      .max(100)
      .optional()
      .describe("id of one of your coupons: every session of the offer starts with its discount while it can apply (a code the buyer types replaces it); none by default."),
  })
  .superRefine((offer, ctx) => {
    const pages = Array.isArray(offer.pages) ? offer.pages : [];
    if (pages.length > 0 && !pages.some((p) => p?.type === 'checkout')) {
      ctx.addIssue({ code: 'custom', path: ['pages'], message: 'An offer needs at least one page of type checkout.' });
    }
    const seen = new Set<string>();
    pages.forEach((p, i) => {
      if (p?.id && seen.has(p.id)) ctx.addIssue({ code: 'custom', path: ['pages', i, 'id'], message: 'Page ids must be unique within an offer.' });
      if (p?.id) seen.add(p.id);
    });
  }, { when: (payload) => typeof payload.value === 'object' && payload.value !== null });

type OfferImportValue = z.infer<typeof OfferImport>;
type FileProduct = { key: string; plans: Array<{ name: string; type?: string; charges?: unknown[] }> };

export type OfferImportResult = OfferSummary & { published: boolean };

/** How to go on after a refusal, by its code. */
const OFFER_HINTS: Record<string, string> = {
  offer_archived: 'An archived offer is final: drop it from the file or give it a new slug.',
  slug_taken: 'Slugs are unique across organizations: give the offer another slug.',
};

/**
 * What the offer sells, from its product's stream (in this file, staged, or imported before):
 * the plan's charges, as the product has them now.
 */
async function offerContent(ctx: ImportContext, offer: OfferImportValue, i: number, fileCoupons: ReadonlySet<string> = new Set()): Promise<OfferContent> {
  try {
    return await offerPlanContent(ctx.command, ctx.organizationId, offer, fileCoupons);
  } catch (error) {
    // A refusal names its field: the file's line for it says why.
    const field = error instanceof DomainError ? Object.keys(error.fields ?? {})[0] : undefined;
    throw field ? new ImportValidationError([{ path: filePath(['offers', i, field]), message: (error as Error).message }]) : error;
  }
}

/**
 * The `offers` section of `commerce import`: each offer sells one plan (product by `key`, plan by
 * `name`); its price is the sum of that plan's charges. Slugs are unique across organizations;
 * re-importing a slug updates the offer.
 */
export const offersSection = importSection({
  name: 'offers',
  schema: z.array(OfferImport).max(1000),
  check(offers, file) {
    const issues: ImportIssue[] = [];
    const slugs = new Set<string>();
    const products = new Map(((file.products ?? []) as FileProduct[]).map((p) => [p.key, p]));
    offers.forEach((offer, i) => {
      if (slugs.has(offer.slug)) issues.push({ path: filePath(['offers', i, 'slug']), message: 'Offer slugs must be unique within the file.' });
      slugs.add(offer.slug);
      const product = products.get(offer.product);
      const plan = product?.plans.find((p) => p.name === offer.plan);
      if (product && !plan) issues.push({ path: filePath(['offers', i, 'plan']), message: `Product ${offer.product} has no plan named ${offer.plan}.` });
      if (plan && (plan.charges ?? []).length === 0) issues.push({ path: filePath(['offers', i, 'plan']), message: `Plan ${offer.plan} has no charges to sell.` });
      const trial = plan && offer.trial_period_days ? trialProblem(plan.name, plan.type) : null;
      if (trial) issues.push({ path: filePath(['offers', i, 'trial_period_days']), message: trial });
    });
    return issues;
  },
  async apply(ctx, offers, file): Promise<OfferImportResult[]> {
    const fileCoupons = new Set(((Array.isArray(file.coupons) ? file.coupons : []) as Array<{ id?: unknown }>).map((c) => c?.id).filter((id): id is string => typeof id === 'string'));
    return applyEach('offers', offers, (o) => ({ label: `Offer ${o.slug}`, field: 'slug' }), OFFER_HINTS, async (offer, i) => {
      const content = await offerContent(ctx, offer, i, fileCoupons);
      const summary = await upsertOffer(ctx.command, { organizationId: ctx.organizationId, slug: offer.slug, ...content });
      const publishedNow = offer.published ? (await publishOffer(ctx.command, summary.uuid)).changed : false;
      return { ...summary, changed: summary.changed || publishedNow, published: offer.published };
    });
  },
  describe: (results: OfferImportResult[]) =>
    results.map((r) => `${r.created ? 'created  ' : r.changed ? 'updated  ' : 'unchanged'} offer ${r.slug} (${r.id})${r.published ? ', published' : ''}`),
});
