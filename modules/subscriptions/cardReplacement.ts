import { randomUUID } from 'node:crypto';
import { DomainError, fold } from '../../platform/domain/index.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { declineInPlainWords } from './domain/dunningEmail.ts';
import { isEnded, subscriptionDecider, subscriptionStream, type PaymentMethod } from './domain/subscription.ts';
import { subscriptionNow, updatePaymentMethod } from './subscriptionCommands.ts';

export type CardInput = { number: string; exp_month: number; exp_year: number; cvc: string };
type SaveOutcome =
  | { status: 'succeeded'; card: { brand: string; last4: string }; reference: string; paymentMethod?: PaymentMethod }
  | { status: 'declined'; code: string; declineCode: string | null; message: string };

/** A provider that keeps a card for charges without the buyer: a charge of zero asked to save it (Stripe's SetupIntent). */
export type CardSaver = {
  charge(request: { amount: number; currency: string; card: CardInput; idempotencyKey: string; description: string; now: number; save: true }): Promise<SaveOutcome>;
};

/**
 * Test mode saves a typed card through the test provider (`providerFor`: payments'
 * paymentProviderFor, handed in since payments builds on this module); live cards are entered on
 * Stripe's own fields (a SetupIntent).
 */
export function cardSaverFor(mode: 'test' | 'live', providerFor: (mode: 'test') => unknown): CardSaver | null {
  if (mode !== 'test') return null;
  return providerFor(mode) as CardSaver | null;
}

/** The card as typed in a form (`number`, `exp` as MM/YY, `cvc`), or why it cannot be: nothing typed ever reaches an answer or a log. */
export function parseCard(body: unknown): CardInput | string {
  const fields = (typeof body === 'object' && body !== null ? body : {}) as Partial<Record<'number' | 'exp' | 'cvc', unknown>>;
  const text = (v: unknown) => (typeof v === 'string' ? v : '');
  const number = text(fields.number).replace(/[\s-]/g, '');
  if (!/^\d{12,19}$/.test(number)) return 'Enter the card number: 12 to 19 digits.';
  const exp = /^\s*(\d{1,2})\s*\/\s*(\d{2}|\d{4})\s*$/.exec(text(fields.exp));
  const month = exp ? Number(exp[1]) : 0;
  if (!exp || month < 1 || month > 12) return 'Enter the expiry as MM/YY.';
  const year = exp[2]!.length === 2 ? 2000 + Number(exp[2]) : Number(exp[2]);
  const cvc = text(fields.cvc).trim();
  if (!/^\d{3,4}$/.test(cvc)) return 'Enter the security code: 3 or 4 digits.';
  return { number, exp_month: month, exp_year: year, cvc };
}

export type CardReplacement =
  | { status: 'saved'; card: { brand: string; last4: string } }
  | { status: 'declined'; message: string }
  | { status: 'refused'; message: string };

/**
 * Puts a new card on a subscription for the buyer (the customer portal's card form), saved through
 * the test provider. An invoice left unpaid becomes due at once with it (the decider's rule for a
 * new card), so the renewals job retries it on its next run.
 */
export async function replaceCard(services: Services, ctx: CommandContext, id: string, card: CardInput, providerFor: (mode: 'test') => unknown): Promise<CardReplacement> {
  const state = fold(subscriptionDecider, (await services.store.readStream(subscriptionStream(id))) as never);
  if (state.status === 'none' || isEnded(state.status)) return { status: 'refused', message: 'This subscription has ended.' };
  const saver = cardSaverFor(state.sub.mode, providerFor);
  if (!saver) return { status: 'refused', message: 'The card cannot be changed on this page; please contact the seller.' };
  const now = await subscriptionNow(ctx, state);
  const saved = await saver.charge({ amount: 0, currency: state.sub.currency, card, idempotencyKey: `card_update_${randomUUID()}`, description: `New card for ${state.sub.offer.name} (${id})`, now: now * 1000, save: true });
  if (saved.status === 'declined') return { status: 'declined', message: declineInPlainWords({ code: saved.code, decline_code: saved.declineCode, message: saved.message }) };
  if (!saved.paymentMethod) return { status: 'refused', message: 'This card cannot be kept for the subscription here; please contact the seller.' };
  return useSavedCard(ctx, id, saved.paymentMethod);
}

/** Puts a card saved elsewhere (live: the SetupIntent Stripe.js confirmed) on the subscription. */
export async function useSavedCard(ctx: CommandContext, id: string, paymentMethod: PaymentMethod): Promise<CardReplacement> {
  try {
    await updatePaymentMethod(ctx, id, paymentMethod);
  } catch (error) {
    if (error instanceof DomainError) return { status: 'refused', message: error.message };
    throw error;
  }
  return { status: 'saved', card: paymentMethod.card };
}
