import { useApi } from './useApi.ts';
import type { Actor, Member } from './types.ts';

/** Who did it, in words: a member's email where known. */
export function actorLabel(actor: Actor, members: Member[] = []): string {
  const email = (id: string) => members.find((m) => m.id === id)?.email;
  switch (actor.type) {
    case 'user':
      return email(actor.id) ?? `User ${actor.id}`;
    case 'api_key':
      return `API key ${actor.id}${email(actor.user_id) ? ` (${email(actor.user_id)})` : ''}`;
    case 'public':
      return actor.ip ? `Buyer (${actor.ip})` : 'Buyer';
    case 'cli':
      return 'Command line';
    case 'system':
      return `System (${actor.name})`;
    case 'customer':
      return `Customer ${actor.id} (portal)`;
    default:
      return 'Unknown';
  }
}

/** Types whose words alone read badly. */
const LABELS: Record<string, string> = {
  InvoiceRefunded: 'Refunded',
  InvoiceDisputed: 'Disputed by the buyer (chargeback)',
  InvoiceUnowedPaymentRefunded: 'Payment refunded: the invoice could no longer be paid',
  InvoicePaymentIntentCreated: 'Stripe payment started',
};

/** "CheckoutSessionPaymentDeclined" → "Session payment declined"; a few types have their own words. */
export function eventLabel(type: string): string {
  const label = LABELS[type];
  if (label) return label;
  const words = type
    .replace(/^CheckoutSession/, 'Session')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** The organization's members, to name the people among actors ([] till they load). */
export function useMembers(): Member[] {
  return useApi<{ data: Member[] }>('/members').data?.data ?? [];
}
