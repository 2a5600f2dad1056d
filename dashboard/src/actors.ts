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
    default:
      return 'Unknown';
  }
}

/** "CheckoutSessionPaymentDeclined" → "Payment declined" (the session and invoice prefixes go). */
export function eventLabel(type: string): string {
  const words = type
    .replace(/^CheckoutSession/, 'Session')
    .replace(/([a-z])([A-Z])/g, '$1 $2')
    .toLowerCase();
  return words.charAt(0).toUpperCase() + words.slice(1);
}
