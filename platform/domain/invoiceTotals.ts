/**
 * The arithmetic of an invoice with a discount and a tax, in minor units, shared by checkout and
 * subscription renewals so both agree to the unit. Stripe's model: `subtotal` is the lines as
 * priced (tax included when the price is tax-inclusive), `total = subtotal − discount + exclusive
 * tax`. Rounding is per line (EU invoices state each line's VAT), half away from zero, and a fixed
 * discount is spread over the lines by largest remainder so the lines add up to the whole.
 */

/** Whether a price already contains its tax (EU consumer prices) or has it added on top. */
export type TaxBehavior = 'inclusive' | 'exclusive';

/** The discount a coupon gives, as the pricing needs it: a share off, or a fixed amount of one currency. */
export type DiscountTerms =
  | { percent_off: number; amount_off?: undefined }
  | { amount_off: number; currency: string; percent_off?: undefined };

/**
 * The tax that applies: a percentage with at most four decimals (Stripe's TaxRate `percentage`).
 * A reverse charge or a country the seller does not collect in is a rate of 0 with its reason.
 */
export type TaxTerms = { percentage: number; behavior: TaxBehavior };

export type PricingLine = {
  name: string;
  /** As priced, minor units; negative for an adjustment (a promo tier below the list price). */
  amount: number;
  /** False keeps the coupon off this line (a coupon's `applies_to` names other products). */
  discountable?: boolean;
};

export type PricedLine = PricingLine & {
  discount_amount: number;
  /** What the tax was computed on: the line less its discount (tax included when inclusive). */
  taxable_amount: number;
  tax_amount: number;
};

export type InvoiceTotals = {
  lines: PricedLine[];
  subtotal: number;
  total_discount: number;
  total_tax: number;
  total: number;
};

/** Rates are kept exact as millionths: 19.5% is 195_000. */
const RATE_SCALE = 1_000_000n;

export function rateUnits(percentage: number): bigint {
  if (!Number.isFinite(percentage) || percentage < 0 || percentage > 100) throw new RangeError(`tax percentage out of range: ${percentage}`);
  const units = Math.round(percentage * 10_000);
  if (Math.abs(units - percentage * 10_000) > 1e-6) throw new RangeError(`tax percentage has more than four decimals: ${percentage}`);
  return BigInt(units);
}

/** numerator / denominator rounded half away from zero; the denominator is positive. */
export function divRound(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n;
  const n = negative ? -numerator : numerator;
  const q = (n * 2n + denominator) / (denominator * 2n);
  return negative ? -q : q;
}

/** The per-line discounts of a percentage off: each line's share rounded on its own. */
function percentShares(lines: PricingLine[], percentOff: number): number[] {
  const rate = rateUnits(percentOff);
  return lines.map((l) => (l.discountable === false ? 0 : Number(divRound(BigInt(l.amount) * rate, RATE_SCALE))));
}

/**
 * A fixed amount off, capped at what the discountable lines come to, spread in proportion to
 * each line with the remainder going to the largest fractions, so the shares sum to the whole.
 */
function amountShares(lines: PricingLine[], amountOff: number): number[] {
  const base = lines.reduce((sum, l) => sum + (l.discountable === false ? 0 : l.amount), 0);
  const off = Math.max(0, Math.min(amountOff, base));
  if (off === 0 || base <= 0) return lines.map(() => 0);
  const exact = lines.map((l) => (l.discountable === false ? 0n : BigInt(l.amount) * BigInt(off)));
  const floors = exact.map((e) => (e >= 0n ? e / BigInt(base) : -((-e + BigInt(base) - 1n) / BigInt(base))));
  let left = off - floors.reduce((s, f) => s + Number(f), 0);
  const order = exact
    .map((e, i) => ({ i, rest: e - floors[i]! * BigInt(base) }))
    .filter(({ i }) => lines[i]!.discountable !== false)
    .sort((a, b) => (a.rest === b.rest ? a.i - b.i : a.rest > b.rest ? -1 : 1));
  const shares = floors.map(Number);
  for (let k = 0; left > 0 && order.length > 0; k = (k + 1) % order.length, left--) shares[order[k]!.i]! += 1;
  return shares;
}

/** The tax of one line: on top of it (exclusive) or the part of it that is tax (inclusive). */
export function lineTax(taxable: number, tax: TaxTerms): number {
  const rate = rateUnits(tax.percentage);
  if (rate === 0n || taxable === 0) return 0;
  const amount = BigInt(taxable);
  if (tax.behavior === 'exclusive') return Number(divRound(amount * rate, RATE_SCALE));
  return Number(amount - divRound(amount * RATE_SCALE, RATE_SCALE + rate));
}

/**
 * Prices the lines: the discount first (it lowers what is taxed, as EU VAT requires), then the
 * tax of each line. An amount off in another currency gives nothing (the caller refuses it first).
 */
export function priceLines(lines: PricingLine[], currency: string, discount: DiscountTerms | null, tax: TaxTerms | null): InvoiceTotals {
  const shares =
    discount === null
      ? lines.map(() => 0)
      : discount.percent_off !== undefined
        ? percentShares(lines, discount.percent_off)
        : discount.currency.toUpperCase() === currency.toUpperCase()
          ? amountShares(lines, discount.amount_off)
          : lines.map(() => 0);
  const priced = lines.map((line, i): PricedLine => {
    const discountAmount = shares[i]!;
    const taxable = line.amount - discountAmount;
    return { ...line, discount_amount: discountAmount, taxable_amount: taxable, tax_amount: tax ? lineTax(taxable, tax) : 0 };
  });
  const subtotal = lines.reduce((s, l) => s + l.amount, 0);
  const totalDiscount = priced.reduce((s, l) => s + l.discount_amount, 0);
  const totalTax = priced.reduce((s, l) => s + l.tax_amount, 0);
  const exclusiveTax = tax?.behavior === 'exclusive' ? totalTax : 0;
  return { lines: priced, subtotal, total_discount: totalDiscount, total_tax: totalTax, total: subtotal - totalDiscount + exclusiveTax };
}
