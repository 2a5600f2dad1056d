import { randomUUID } from 'node:crypto';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { handleCommand, toNewEvent } from '../../platform/es/handleCommand.ts';
import { allocateId } from '../../platform/es/idAllocator.ts';
import { encodeRouteKey } from '../../platform/lib/routeKeys.ts';
import { offerDecider, offerSlugStream, offerStream, type OfferContent } from '../../modules/checkout/domain/offer.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const offerContent = (overrides: Partial<OfferContent> = {}): OfferContent => ({
  name: 'Pro plan',
  theme: {
    primary_color: '#3355ff',
    background_color: '#ffffff',
    text_color: '#111111',
    font_family: 'Inter, sans-serif',
    logo_url: 'https://cdn.example.com/logo.png',
    button_text: 'Pay now',
  },
  pages: [
    { id: 'pay', type: 'checkout', title: 'Checkout', blocks: [{ type: 'heading', text: 'Go Pro' }, { type: 'price' }] },
    { id: 'thanks', type: 'thank_you', title: 'Thank you', blocks: [{ type: 'text', text: 'Welcome aboard.' }] },
  ],
  plan: {
    product_id: randomUUID(),
    plan_id: 'plan_monthly',
    plan_name: 'monthly',
    charges: [
      { id: 'c1', name: 'Pro monthly', amount: 1900 },
      { id: 'c2', name: 'Setup fee', amount: 500 },
    ],
  },
  currency: 'EUR',
  ...overrides,
});

/** An offer made through the same commands the import runs, published unless told otherwise. */
export async function makeOffer(
  server: TestServer,
  organizationId: string,
  options: { slug?: string; publish?: boolean; content?: Partial<OfferContent> } = {},
) {
  const slug = options.slug ?? `offer-${randomUUID().slice(0, 8)}`;
  const ctx = server.cliContext(organizationId);
  const offer = await upsertOffer(ctx, { organizationId, slug, ...offerContent(options.content) });
  if (options.publish !== false) await publishOffer(server.cliContext(organizationId), offer.uuid);
  await server.settle();
  return offer;
}

/** The cheap offer an attacker would put behind someone else's reference. */
export const cheapOffer = offerContent({
  name: 'Squatter',
  plan: { product_id: randomUUID(), plan_id: 'plan_x', plan_name: 'x', charges: [{ id: 'c1', name: 'Cheap', amount: 1 }] },
});

/**
 * A published offer whose slug was stored before slugs that read as a UUID or route key were
 * refused: the events are written as upsertOffer wrote them then, past today's slug rule.
 */
export async function legacyOffer(server: TestServer, organizationId: string, slug: string) {
  const ctx = server.cliContext(organizationId);
  const uuid = randomUUID();
  await ctx.store.append(
    offerSlugStream(slug),
    [toNewEvent({ type: 'OfferSlugClaimed', data: { offer_uuid: uuid, organization_id: organizationId } }, ctx.metadata)],
    'no_stream',
  );
  const id = await allocateId(ctx.store, 'offer', ctx.metadata);
  await handleCommand(ctx, offerStream(uuid), offerDecider, { type: 'CreateOffer', uuid, id, organizationId, slug, now: ctx.metadata.occurred_at, ...cheapOffer });
  await handleCommand(ctx, offerStream(uuid), offerDecider, { type: 'PublishOffer', now: ctx.metadata.occurred_at });
  await server.settle();
  return { uuid, id: encodeRouteKey(id), slug };
}

export const json = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
});

export const GOOD_CARD = { number: '4242 4242 4242 4242', exp_month: 12, exp_year: 2099, cvc: '123' };
export const DECLINED_CARD = { ...GOOD_CARD, number: '4000000000000002' };
