import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishOffer, upsertOffer } from '../../modules/checkout/offerCommands.ts';
import { allocateId } from '../../platform/es/idAllocator.ts';
import { decodeRouteKey, encodeRouteKey } from '../../platform/lib/routeKeys.ts';
import { ROUTE_KEY_IDS_IN_REACH } from '../../platform/lib/offerRef.ts';
import { offerSlugStream, SLUG } from '../../modules/checkout/domain/offer.ts';
import { DomainError } from '../../platform/domain/domainError.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { cheapOffer as cheap, json, legacyOffer, makeOffer } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('offer references: a UUID or route key finds its own offer, never a slug', () => {
  let server: TestServer;
  let sellerA: string;
  let sellerB: string;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    sellerA = (await server.identity('Seller A')).organizationId;
    sellerB = (await server.identity('Seller B')).organizationId;
  });
  afterAll(() => server.close({ remove: true }));

  const init = async (ref: string) => {
    const response = await server.fetch(`/api/checkout?offer=${encodeURIComponent(ref)}`);
    return { status: response.status, body: (await response.json()) as Body };
  };
  const create = async (body: unknown) => {
    const response = await server.fetch('/api/checkout/sessions', json(body));
    return { status: response.status, body: (await response.json()) as Body };
  };
  const sessionOrganization = async (id: string) => {
    const [created] = await server.services.store.readStream(`checkout_session-${id}`);
    return (created!.data as Body).organization_id as string;
  };
  const hostedPage = async (ref: string) => (await server.fetch(`/checkout/${ref}`, { headers: { accept: 'text/html' } })).text();

  it("another organization's slug equal to an offer's UUID does not take its checkout or its sessions", async () => {
    const offer = await makeOffer(server, sellerA);
    await legacyOffer(server, sellerB, offer.uuid);
    for (const ref of [offer.uuid, offer.uuid.toUpperCase()]) {
      const { status, body } = await init(ref);
      expect(status).toBe(200);
      expect(body.offer).toEqual({ id: offer.id, slug: offer.slug, name: 'Pro plan' });
    }
    for (const body of [{ offer: offer.uuid }, { offer_id: offer.uuid }]) {
      const created = await create(body);
      expect(created.status).toBe(201);
      expect(created.body.session.total).toBe(2400);
      expect(created.body.offer.id).toBe(offer.id);
      expect(await sessionOrganization(created.body.session.id)).toBe(sellerA);
    }
    const page = await hostedPage(offer.uuid);
    expect(page).toContain('Pro plan');
    expect(page).not.toContain('Squatter');
  });

  it('a slug squatted on a route key before it was allocated answers only until an offer gets that key', async () => {
    // Burn offer ids until the one after the squatter's own has a route key that is a valid slug
    // (63 is fdlu6q).
    const ctx = server.cliContext(sellerA);
    let last = await allocateId(ctx.store, 'offer', ctx.metadata);
    while (!SLUG.test(encodeRouteKey(last + 2))) last = await allocateId(ctx.store, 'offer', ctx.metadata);
    const key = encodeRouteKey(last + 2);
    const squatter = await legacyOffer(server, sellerB, key);
    expect(squatter.id).not.toBe(key);
    // Stored slugs that break today's rule still read while nothing else owns the reference...
    expect((await init(key)).body.offer).toMatchObject({ slug: key, name: 'Squatter' });

    const offer = await makeOffer(server, sellerA, { publish: true });
    expect(offer.id).toBe(key);
    // ...and lose to the offer that owns it as its route key.
    const { status, body } = await init(key);
    expect(status).toBe(200);
    expect(body.offer).toEqual({ id: key, slug: offer.slug, name: 'Pro plan' });
    const created = await create({ offer: key });
    expect(created.status).toBe(201);
    expect(created.body.session.total).toBe(2400);
    expect(await sessionOrganization(created.body.session.id)).toBe(sellerA);
    expect(await hostedPage(key)).not.toContain('Squatter');
    // The squatter's offer is still found by its own UUID and route key.
    expect((await init(squatter.uuid)).body.offer.name).toBe('Squatter');
    expect((await init(squatter.id)).body.offer.name).toBe('Squatter');
  });

  it("an unpublished offer's UUID answers 404, not another organization's slug equal to it", async () => {
    const draft = await makeOffer(server, sellerA, { publish: false });
    await legacyOffer(server, sellerB, draft.uuid);
    const { status, body } = await init(draft.uuid);
    expect(status).toBe(404);
    expect(body).toEqual({ message: 'Offer not found.', code: 'not_found' });
    expect((await create({ offer: draft.uuid })).status).toBe(404);
  });

  it('a legacy UUID-shaped slug still reads while no offer has that UUID', async () => {
    const slug = randomUUID();
    await legacyOffer(server, sellerB, slug);
    expect((await init(slug)).body.offer).toMatchObject({ slug, name: 'Squatter' });
  });

  it('refuses to create or update an offer whose slug reads as a UUID or a route key, and claims nothing', async () => {
    const offer = await makeOffer(server, sellerA);
    const routeKey = Array.from({ length: 1000 }, (_, n) => encodeRouteKey(n + 5000)).find((k) => SLUG.test(k))!;
    for (const slug of [offer.uuid, randomUUID(), routeKey]) {
      const attempt = upsertOffer(server.cliContext(sellerB), { organizationId: sellerB, slug, ...cheap });
      await expect(attempt).rejects.toBeInstanceOf(DomainError);
      await expect(attempt).rejects.toMatchObject({ kind: 'invalid', code: 'slug_reserved', fields: { slug: [expect.stringContaining('ambiguous')] } });
      expect(await server.services.store.readStream(offerSlugStream(slug))).toEqual([]);
    }
    // A slug that only resembles one (not canonical, or with a dash) is fine.
    const near = await upsertOffer(server.cliContext(sellerB), { organizationId: sellerB, slug: `${routeKey}-x`, ...cheap });
    expect(near.created).toBe(true);
    // So is a word that is the key of an id no counter reaches, and it is found by it.
    expect(decodeRouteKey('starter')).toBeGreaterThan(ROUTE_KEY_IDS_IN_REACH);
    const word = await upsertOffer(server.cliContext(sellerB), { organizationId: sellerB, slug: 'starter', ...cheap });
    expect(word.created).toBe(true);
    await publishOffer(server.cliContext(sellerB), word.uuid);
    await server.settle();
    expect((await init('starter')).body.offer).toMatchObject({ slug: 'starter' });
  });
});
