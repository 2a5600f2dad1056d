import { randomUUID } from 'node:crypto';
import {
  offerDecider,
  offerSlugStream,
  offerStream,
  type OfferContent,
  type OfferState,
} from './domain/offer.ts';
import { fold, DomainError } from '../../platform/domain/index.ts';
import { WrongExpectedRevisionError } from '../../platform/eventStore/index.ts';
import { handleCommand, toNewEvent, type CommandContext, allocatedStream, allocateId } from '../../platform/es/index.ts';
import { encodeRouteKey, parseOfferRef, reservedSlugMessage } from '../../platform/lib/index.ts';

/** The counter offer ids (route keys) come from. */
export const OFFER_COUNTER = 'offer';

export type OfferInput = OfferContent & { organizationId: string; slug: string };
/** `changed`: the call recorded something (a new offer, or content that differs); false for the same content again. */
export type OfferSummary = { uuid: string; id: string; slug: string; name: string; created: boolean; changed: boolean };

/**
 * Creates the offer of a slug, or updates it when the organization already owns that slug (imports
 * run again). The slug is claimed on its own stream with no_stream first, so two concurrent
 * imports of one slug make one offer, and another organization's slug is refused. A slug that
 * reads as a UUID or route key is refused too, even for an offer that already has it.
 */
export async function upsertOffer(ctx: CommandContext, input: OfferInput): Promise<OfferSummary> {
  const { organizationId, slug, ...content } = input;
  // Checked before the claim, so a refused slug is never claimed (and never shadows a reference).
  const reserved = reservedSlugMessage(slug);
  if (reserved) throw new DomainError('invalid', 'slug_reserved', reserved, { slug: [reserved] });
  const claimStream = offerSlugStream(slug);
  let uuid: string = randomUUID();
  try {
    await ctx.store.append(
      claimStream,
      [toNewEvent({ type: 'OfferSlugClaimed', data: { offer_uuid: uuid, organization_id: organizationId } }, ctx.metadata)],
      'no_stream',
    );
  } catch (error) {
    if (!(error instanceof WrongExpectedRevisionError)) throw error;
    const [claim] = await ctx.store.readStream(claimStream);
    const data = claim!.data as { offer_uuid: string; organization_id: string };
    if (data.organization_id !== organizationId) {
      throw new DomainError('invalid', 'slug_taken', `The slug '${slug}' is already taken.`, { slug: [`The slug '${slug}' is already taken.`] });
    }
    uuid = data.offer_uuid;
  }
  const stream = offerStream(uuid);
  const state = await loadOffer(ctx, uuid);
  if (state.status === 'none') {
    // The check runs before an id is allocated, so refused content does not use up route keys.
    offerDecider.decide({ type: 'CreateOffer', uuid, id: 1, organizationId, slug, now: 0, ...content }, state);
    const id = await allocateId(ctx.store, OFFER_COUNTER, ctx.metadata, stream);
    await handleCommand(ctx, stream, offerDecider, { type: 'CreateOffer', uuid, id, organizationId, slug, now: ctx.metadata.occurred_at, ...content });
    return { uuid, id: encodeRouteKey(id), slug, name: content.name, created: true, changed: true };
  }
  const updated = await handleCommand(ctx, stream, offerDecider, { type: 'UpdateOffer', organizationId, now: ctx.metadata.occurred_at, ...content });
  return { uuid, id: encodeRouteKey(state.id), slug, name: content.name, created: false, changed: updated.events.length > 0 };
}

export async function loadOffer(ctx: CommandContext, uuid: string): Promise<OfferState> {
  return fold(offerDecider, (await ctx.store.readStream(offerStream(uuid))) as never);
}

export async function publishOffer(ctx: CommandContext, uuid: string): Promise<{ uuid: string; status: string; changed: boolean }> {
  const result = await handleCommand(ctx, offerStream(uuid), offerDecider, { type: 'PublishOffer', now: ctx.metadata.occurred_at });
  return { uuid, status: result.state.status, changed: result.events.length > 0 };
}

export async function archiveOffer(ctx: CommandContext, uuid: string): Promise<{ uuid: string; status: string; changed: boolean }> {
  const result = await handleCommand(ctx, offerStream(uuid), offerDecider, { type: 'ArchiveOffer', now: ctx.metadata.occurred_at });
  return { uuid, status: result.state.status, changed: result.events.length > 0 };
}

/**
 * The UUID of the offer a reference (UUID, route key or slug) names, from the event log alone (the
 * offer's stream, the id counter, the slug's claim), with findOfferByRef's precedence: a UUID or
 * route key that names an offer wins over a slug. Null when the log does not say (no such offer,
 * or a route key allocated before the counter named its stream): the caller may then ask the
 * read model.
 */
export async function offerUuidOfRef(ctx: Pick<CommandContext, 'store'>, ref: string): Promise<string | null> {
  const parsed = parseOfferRef(ref);
  if (parsed.kind === 'uuid') {
    if (await ctx.store.readEvent(offerStream(parsed.uuid), 0)) return parsed.uuid;
  } else if (parsed.kind === 'route_key') {
    const stream = await allocatedStream(ctx.store, OFFER_COUNTER, parsed.number);
    if (stream?.startsWith('offer-')) return stream.slice('offer-'.length);
    // A key allocated without naming its stream may still be an offer's, which wins over a slug:
    // only the read model knows.
    if (stream === null && (await ctx.store.readEvent(`counter-${OFFER_COUNTER}`, parsed.number - 1))) return null;
  }
  const claim = await ctx.store.readEvent(offerSlugStream(ref), 0);
  return claim ? (claim.data as { offer_uuid: string }).offer_uuid : null;
}
