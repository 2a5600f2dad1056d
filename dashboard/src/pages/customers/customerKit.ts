import { formatMoney } from '../../format.ts';

/** "€98.00 · $10.00" for sums per currency; "—" when there is none. */
export function moneyList(sums: Record<string, number>): string {
  const entries = Object.entries(sums).filter(([, amount]) => amount !== 0);
  return entries.length ? entries.map(([currency, amount]) => formatMoney(amount, currency)).join(' · ') : '—';
}

/** What an object of the history is, in the seller's words. */
export const OBJECT_WORDS: Record<string, string> = {
  customer: 'Customer',
  checkout_session: 'Checkout',
  invoice: 'Invoice',
  subscription: 'Subscription',
};
