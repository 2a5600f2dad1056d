import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPromo, enrolParticipant } from '../../modules/promos/promoCommands.ts';
import { promoPriceForOffer } from '../../modules/promos/promoQueries.ts';
import { manualClock, startTestServer, type TestServer } from '../helpers/testServer.ts';

describe('GET /api/promos/{slug}', () => {
  const clock = manualClock(1_800_000_000_000);
  const now = () => Math.floor(clock() / 1000);
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ clock, env: { PROMO_RATE_LIMIT_MAX: '30' } });
    me = await server.identity();
    await createPromo(server.cliContext(me.organizationId), {
      organizationId: me.organizationId,
      slug: 'launch',
      name: 'Launch',
      startsAt: now() + 100,
      endsAt: now() + 10_000,
      tiers: [
        { name: 'Early', price: 4900, discount_percent: null, until: now() + 1000, max_participants: 2 },
        { name: 'Launch', price: null, discount_percent: 20, until: null, max_participants: null },
      ],
      offers: ['pro'],
    });
    await server.settle();
  });
  afterAll(() => server.close({ remove: true }));

  const get = async (slug = 'launch', headers: Record<string, string> = {}) => server.fetch(`/api/promos/${slug}`, { headers });

  it('answers a scheduled promo publicly with CORS open', async () => {
    const response = await get('launch', { origin: 'https://shop.example' });
    expect(response.status).toBe(200);
    expect(response.headers.get('access-control-allow-origin')).toBe('*');
    expect(await response.json()).toEqual({
      slug: 'launch',
      name: 'Launch',
      state: 'scheduled',
      starts_at: now() + 100,
      ends_at: now() + 10_000,
      current_tier: null,
      tiers: [
        { name: 'Early', price: 4900, discount_percent: null, until: now() + 1000, max_participants: 2 },
        { name: 'Launch', price: null, discount_percent: 20, until: null, max_participants: null },
      ],
      participants_count: 0,
      countdown: { ends_at: now() + 10_000, seconds_remaining: 10_000 },
      server_time: now(),
    });
    const preflight = await server.fetch('/api/promos/launch', { method: 'OPTIONS', headers: { origin: 'https://shop.example', 'access-control-request-method': 'GET' } });
    expect(preflight.status).toBe(204);
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('follows time and enrolments through the tiers, and prices offers accordingly', async () => {
    clock.advance(200_000);
    let body = (await (await get()).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ state: 'active', current_tier: { name: 'Early' }, countdown: { ends_at: now() + 800, seconds_remaining: 800 } });
    expect(await promoPriceForOffer(server.services.readStore, { slug: 'launch', organizationId: me.organizationId, offerSlug: 'pro', offerAmount: 9900, nowMs: clock() })).toEqual({
      amount: 4900,
      tier: 'Early',
      tier_index: 0,
    });
    const ctx = server.cliContext(me.organizationId);
    await enrolParticipant(ctx, { organizationId: me.organizationId, slug: 'launch', email: 'a@example.com', reference: null, workflowId: null });
    await enrolParticipant(ctx, { organizationId: me.organizationId, slug: 'launch', email: 'a@example.com', reference: null, workflowId: null });
    await enrolParticipant(ctx, { organizationId: me.organizationId, slug: 'launch', email: 'b@example.com', reference: 'x', workflowId: null });
    await server.settle();
    body = (await (await get()).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ participants_count: 2, current_tier: { name: 'Launch' } });
    expect(await promoPriceForOffer(server.services.readStore, { slug: 'launch', organizationId: me.organizationId, offerSlug: 'pro', offerAmount: 9900, nowMs: clock() })).toEqual({
      amount: 7920,
      tier: 'Launch',
      tier_index: 1,
    });
    expect(await promoPriceForOffer(server.services.readStore, { slug: 'launch', organizationId: me.organizationId, offerSlug: 'team', offerAmount: 9900, nowMs: clock() })).toBeNull();
    expect(await promoPriceForOffer(server.services.readStore, { slug: 'launch', organizationId: 'org_other', offerSlug: 'pro', offerAmount: 9900, nowMs: clock() })).toBeNull();
    clock.advance(20_000_000);
    body = (await (await get()).json()) as Record<string, unknown>;
    expect(body).toMatchObject({ state: 'ended', current_tier: null, countdown: { seconds_remaining: 0 } });
  });

  it('answers 404 for an unknown promo and 422 for a malformed slug', async () => {
    const unknown = await get('nope');
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ message: 'Promo not found.', code: 'not_found' });
    const bad = await get('Bad_Slug!');
    expect(bad.status).toBe(422);
    expect(await bad.json()).toHaveProperty('message');
  });

  it('rate limits per client address', async () => {
    let last = 200;
    for (let i = 0; i < 40 && last !== 429; i++) last = (await get()).status;
    expect(last).toBe(429);
  });
});
