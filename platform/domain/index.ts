export { asArray, type Decider, type DomainEvent, fold } from './decider.ts';
export { conflict, DomainError, invalid, notFound } from './domainError.ts';
export { MAX_AMOUNT } from './money.ts';
export { isWebhookUrl } from './webhookUrl.ts';
export { currencyDigits, formatMoney, minorToDecimal } from './moneyFormat.ts';
export { formatBytes } from './byteSize.ts';
export { priceLines, type DiscountTerms, type InvoiceTotals, type PricedLine, type PricingLine, type TaxBehavior, type TaxTerms } from './invoiceTotals.ts';
export {
  discountTerms,
  taxTerms,
  type AppliedDiscount,
  type AppliedTax,
  type CouponDuration,
  type CustomerTaxDetails,
  type PricingRecord,
  type TaxabilityReason,
} from './pricingTerms.ts';
