import { promoDecider, promoStream, type PromoOffers, type PromoTier } from './domain/promo.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';

type PromoInput = { organizationId: string; slug: string; name: string; startsAt: number; endsAt: number; tiers: PromoTier[]; offers?: PromoOffers };

export async function createPromo(ctx: CommandContext, input: PromoInput): Promise<{ slug: string; position: number | null }> {
  const result = await handleCommand(ctx, promoStream(input.slug), promoDecider, { type: 'CreatePromo', ...input, offers: input.offers ?? null, now: ctx.metadata.occurred_at });
  return { slug: input.slug, position: result.position };
}

/** Re-import: sets name, dates and tiers; records nothing when they are unchanged. */
export async function updatePromo(ctx: CommandContext, input: PromoInput): Promise<{ changed: boolean }> {
  const result = await handleCommand(ctx, promoStream(input.slug), promoDecider, { type: 'UpdatePromo', ...input, offers: input.offers ?? null, now: ctx.metadata.occurred_at });
  return { changed: result.events.length > 0 };
}

/** Enrolling an email twice is a no-op (`enrolled: false`). */
export async function enrolParticipant(
  ctx: CommandContext,
  input: { organizationId: string; slug: string; email: string; reference: string | null; workflowId: number | null },
): Promise<{ enrolled: boolean; email: string }> {
  const result = await handleCommand(ctx, promoStream(input.slug), promoDecider, {
    type: 'EnrolParticipant',
    organizationId: input.organizationId,
    email: input.email,
    reference: input.reference,
    workflowId: input.workflowId,
    now: ctx.metadata.occurred_at,
  });
  return { enrolled: result.events.length > 0, email: input.email.trim().toLowerCase() };
}
