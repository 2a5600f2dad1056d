import { createCoupon, createPromotionCode } from '../../modules/discounts/discountCommands.ts';
import { findCoupon, listCoupons, listPromotionCodes, presentCoupon, presentPromotionCodes, type CouponResource, type PromotionCodeResource } from '../../modules/discounts/discountQueries.ts';
import { CouponCreateBody, PromotionCodeCreateBody } from '../../modules/discounts/http/discountSchemas.ts';
import { loadProductByRef } from '../../modules/catalog/index.ts';
import { DomainError, formatMoney } from '../../platform/domain/index.ts';
import { CliUsageError, listCommand, parsedBody as parsed, requireArg, textOption as text, unixOrIsoSeconds, type CliCommand, type CliOptions } from '../command.ts';
import { organizationOption } from './organizationOption.ts';

function numberOption(options: CliOptions, name: string): number | undefined {
  const raw = text(options, name);
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!/^\d+(\.\d+)?$/.test(raw.trim()) || !Number.isFinite(n)) throw new CliUsageError(`--${name} takes a number (${raw} is not one)`);
  return n;
}

/** Unix seconds, or an ISO 8601 date or date and time with its zone. */
function timeOption(options: CliOptions, name: string): number | undefined {
  const raw = text(options, name)?.trim();
  if (raw === undefined) return undefined;
  const seconds = unixOrIsoSeconds(raw);
  if (!Number.isSafeInteger(seconds)) throw new CliUsageError(`--${name} takes Unix seconds (1767225600), a date (2026-01-01) or a time with its zone (2026-01-01T09:30:00Z)`);
  return seconds;
}

function restrictions(options: CliOptions) {
  const first = options['first-time'] === true;
  const minimum = numberOption(options, 'minimum-amount');
  if (!first && minimum === undefined) return undefined;
  return { first_time_transaction: first, ...(minimum !== undefined ? { minimum_amount: minimum, minimum_amount_currency: text(options, 'minimum-currency') } : {}) };
}

const off = (c: CouponResource) => (c.percent_off !== null ? `${c.percent_off}% off` : `${formatMoney(c.amount_off ?? 0, c.currency ?? '')} off`);
const duration = (c: CouponResource) => (c.duration === 'repeating' ? `for ${c.duration_in_months} months` : c.duration);
const limit = (used: number, max: number | null) => `${used}${max !== null ? `/${max}` : ''} redeemed`;
const describeCoupon = (c: CouponResource) => `${c.id}${c.name ? ` (${c.name})` : ''}  ${off(c)}, ${duration(c)}  ${limit(c.times_redeemed, c.max_redemptions)}${c.valid ? '' : '  not valid'}`;
const describeCode = (p: PromotionCodeResource) => `${p.code}  ${p.id}  coupon ${p.coupon.id}  ${p.active ? 'active' : 'inactive'}  ${limit(p.times_redeemed, p.max_redemptions)}`;

export const couponListCommand = listCommand(
  'coupons',
  'The coupons of an organization, newest first, with how often each was redeemed.',
  async (ctx) => {
    const org = await organizationOption(ctx, 'coupons list');
    const now = Math.floor(ctx.services.clock() / 1000);
    const { items } = await listCoupons(ctx.services.readStore, org, { skip: 0, limit: 1000 });
    return items.map((d) => presentCoupon(d, now));
  },
  (coupons) => (coupons.length === 0 ? 'no coupons (commerce coupons create)' : coupons.map(describeCoupon).join('\n')),
);

export const couponCreateCommand: CliCommand = {
  path: ['coupons', 'create'],
  usage:
    'coupons create (--percent-off N | --amount-off MINOR --currency CUR) [--id ID] [--name NAME] [--duration once|repeating|forever] [--months N] [--max-redemptions N] [--redeem-by UNIX|ISO] [--products ID,ID] [--first-time] [--minimum-amount MINOR --minimum-currency CUR] [--org ORG]',
  description: 'Create a coupon: a percentage or an amount off; hand it out with commerce promotion-codes create.',
  options: {
    org: 'string', id: 'string', name: 'string', 'percent-off': 'string', 'amount-off': 'string', currency: 'string', duration: 'string', months: 'string',
    'max-redemptions': 'string', 'redeem-by': 'string', products: 'string', 'first-time': 'boolean', 'minimum-amount': 'string', 'minimum-currency': 'string',
  },
  async run(ctx) {
    const org = await organizationOption(ctx, 'coupons create');
    const o = ctx.options;
    const body = parsed(CouponCreateBody, {
      id: text(o, 'id'),
      name: text(o, 'name'),
      percent_off: numberOption(o, 'percent-off'),
      amount_off: numberOption(o, 'amount-off'),
      currency: text(o, 'currency'),
      duration: text(o, 'duration'),
      duration_in_months: numberOption(o, 'months'),
      max_redemptions: numberOption(o, 'max-redemptions'),
      redeem_by: timeOption(o, 'redeem-by'),
      applies_to: text(o, 'products') ? { products: text(o, 'products')!.split(',').map((p) => p.trim()).filter(Boolean) } : undefined,
      restrictions: restrictions(o),
    });
    const command = ctx.commandContext(org);
    if (body.redeem_by !== undefined && body.redeem_by <= command.metadata.occurred_at) throw new DomainError('invalid', 'validation_failed', 'redeem_by: The redeem by date must be in the future.', { redeem_by: ['The redeem by date must be in the future.'] });
    const products: string[] = [];
    for (const ref of body.applies_to?.products ?? []) {
      const product = await loadProductByRef(command, org, ref);
      if (!product) throw new DomainError('invalid', 'validation_failed', `applies_to.products: No such product: ${ref}.`, { 'applies_to.products': [`No such product: ${ref}.`] });
      products.push(product.routeKey);
    }
    const { id } = await createCoupon(command, { organizationId: org, ...body, applies_to: products.length > 0 ? { products } : null });
    await ctx.catchUp();
    return presentCoupon((await findCoupon(ctx.services.readStore, org, id))!, command.metadata.occurred_at);
  },
  format: (c: CouponResource) => `coupon created: ${describeCoupon(c)}`,
};

export const promotionCodeCreateCommand: CliCommand = {
  path: ['promotion-codes', 'create'],
  usage: 'promotion-codes create COUPON [--code CODE] [--max-redemptions N] [--expires-at UNIX|ISO] [--first-time] [--minimum-amount MINOR --minimum-currency CUR] [--inactive] [--org ORG]',
  description: 'Create a code buyers type for a coupon (case-insensitive, unique in the organization; generated when --code is left out).',
  options: { org: 'string', code: 'string', 'max-redemptions': 'string', 'expires-at': 'string', 'first-time': 'boolean', 'minimum-amount': 'string', 'minimum-currency': 'string', inactive: 'boolean' },
  maxArgs: 1,
  async run(ctx) {
    const org = await organizationOption(ctx, 'promotion-codes create');
    const coupon = requireArg(ctx.args, 'promotion-codes create needs the coupon id (see commerce coupons list)');
    const o = ctx.options;
    const body = parsed(PromotionCodeCreateBody, {
      coupon,
      code: text(o, 'code'),
      active: o.inactive === true ? false : undefined,
      max_redemptions: numberOption(o, 'max-redemptions'),
      expires_at: timeOption(o, 'expires-at'),
      restrictions: restrictions(o),
    });
    const command = ctx.commandContext(org);
    if (body.expires_at !== undefined && body.expires_at <= command.metadata.occurred_at) throw new DomainError('invalid', 'validation_failed', 'expires_at: The expiry must be in the future.', { expires_at: ['The expiry must be in the future.'] });
    const { id } = await createPromotionCode(command, { organizationId: org, ...body });
    await ctx.catchUp();
    const { items } = await listPromotionCodes(ctx.services.readStore, org, { coupon, skip: 0, limit: 1000 });
    const [code] = await presentPromotionCodes(ctx.services.readStore, org, items.filter((c) => c.id === id), command.metadata.occurred_at);
    return code;
  },
  format: (p: PromotionCodeResource) => `promotion code created: ${describeCode(p)}`,
};

export const promotionCodeListCommand: CliCommand = {
  path: ['promotion-codes', 'list'],
  usage: 'promotion-codes list [--coupon ID] [--code CODE] [--active true|false] [--org ORG]',
  description: 'The promotion codes of an organization, newest first, with how often each was redeemed.',
  options: { org: 'string', coupon: 'string', code: 'string', active: 'string' },
  async run(ctx) {
    const org = await organizationOption(ctx, 'promotion-codes list');
    const active = text(ctx.options, 'active');
    if (active !== undefined && active !== 'true' && active !== 'false') throw new CliUsageError('--active takes true or false');
    const { items } = await listPromotionCodes(ctx.services.readStore, org, {
      coupon: text(ctx.options, 'coupon'),
      code: text(ctx.options, 'code'),
      active: active === undefined ? undefined : active === 'true',
      skip: 0,
      limit: 1000,
    });
    return presentPromotionCodes(ctx.services.readStore, org, items, Math.floor(ctx.services.clock() / 1000));
  },
  format: (codes: PromotionCodeResource[]) => (codes.length === 0 ? 'no promotion codes (commerce promotion-codes create COUPON)' : codes.map(describeCode).join('\n')),
};

export const couponCommands: CliCommand[] = [couponListCommand, couponCreateCommand, promotionCodeListCommand, promotionCodeCreateCommand];
