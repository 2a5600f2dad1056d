import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { archiveOffer } from '../../modules/checkout/offerCommands.ts';
import { createPromo } from '../../modules/promos/promoCommands.ts';
import type { PromoOffers } from '../../modules/promos/domain/promo.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { DECLINED_CARD, GOOD_CARD, json, makeOffer, offerContent } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describe('public checkout routes', () => {
  let server: TestServer;
  let org: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    org = await server.identity('Seller');
  });
  afterAll(() => server.close({ remove: true }));

  const create = async (body: unknown, headers: Record<string, string> = {}) => {
    const response = await server.fetch('/api/checkout/sessions', json(body, headers));
    return { status: response.status, body: (await response.json()) as Body, headers: response.headers };
  };

  /** A promo of one tier, in force for the next hour: a fixed `price`, or a `discount` per cent. */
  const activePromo = async (
    organizationId: string,
    promo: { slug: string; name: string; tier: string; price?: number; discount?: number; offers?: PromoOffers },
  ) => {
    const now = Math.floor(Date.now() / 1000);
    await createPromo(server.cliContext(organizationId), {
      organizationId,
      slug: promo.slug,
      name: promo.name,
      startsAt: now - 60,
      endsAt: now + 3600,
      tiers: [{ name: promo.tier, price: promo.price ?? null, discount_percent: promo.discount ?? null, until: null, max_participants: null }],
      offers: promo.offers ?? null,
    });
  };

  describe('GET /api/checkout', () => {
    it('finds a published offer by slug, route key and UUID', async () => {
      const offer = await makeOffer(server, org.organizationId, { slug: 'pro-yearly' });
      for (const ref of [offer.slug, offer.id, offer.uuid]) {
        const response = await server.fetch(`/api/checkout?offer=${encodeURIComponent(ref)}`);
        expect(response.status).toBe(200);
        const body = (await response.json()) as Body;
        expect(body.offer).toEqual({ id: offer.id, slug: 'pro-yearly', name: 'Pro plan' });
        expect(body.theme.primary_color).toBe('#3355ff');
        expect(body.pages).toHaveLength(2);
        expect(body.firstPage).toEqual(body.pages[0]);
      }
      const legacy = await server.fetch(`/api/checkout?offer_id=${offer.id}`);
      expect(legacy.status).toBe(200);
    });

    it('answers 404 for unknown, draft and archived offers', async () => {
      const draft = await makeOffer(server, org.organizationId, { publish: false });
      const archived = await makeOffer(server, org.organizationId);
      await archiveOffer(server.cliContext(org.organizationId), archived.uuid);
      await server.settle();
      for (const ref of ['no-such-offer', draft.slug, archived.slug, archived.uuid, 'ZZZZZZZZ', '00000000-0000-0000-0000-000000000000']) {
        const response = await server.fetch(`/api/checkout?offer=${ref}`);
        expect(response.status).toBe(404);
        expect(await response.json()).toEqual({ message: 'Offer not found.', code: 'not_found' });
      }
    });

    it('answers 422 without an offer parameter', async () => {
      const response = await server.fetch('/api/checkout');
      expect(response.status).toBe(422);
      const body = (await response.json()) as Body;
      expect(body).toMatchObject({ message: 'The offer field is required.', code: 'validation_failed' });
      expect(body.errors.offer).toEqual(['The offer field is required.']);
    });
  });

  describe('POST /api/checkout/sessions', () => {
    it('creates an open session with the offer price and an unguessable id, without an invoice', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const before = Math.floor(Date.now() / 1000);
      const { status, body } = await create({ offer: offer.slug, metadata: { source: 'landing' } });
      // The server's now lies between these, however long the request took on a busy machine.
      const after = Math.ceil(Date.now() / 1000);
      expect(status).toBe(201);
      expect(body.session).toMatchObject({ status: 'open', currency: 'EUR', total: 2400, mode: 'test', invoice: null });
      expect(body.session.id).toMatch(/^cs_[A-Za-z0-9]{24}$/);
      expect(body.session.expires_at).toBeGreaterThanOrEqual(before + 86_400);
      expect(body.session.expires_at).toBeLessThanOrEqual(after + 86_400);
      expect(body.offer).toEqual({ id: offer.id, slug: offer.slug, name: 'Pro plan' });
      const events = await server.services.store.readAll({ after: null, limit: 100_000 });
      expect(events.some((e) => e.type === 'InvoiceCreated' && (e.data as Body).session_id === body.session.id)).toBe(false);
    });

    it('accepts offer_id, expires_in and a signed customer token', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const me = (await (await server.fetch('/api/users/me', { token: org.token })).json()) as Body;
      const { status, body } = await create({ offer_id: offer.uuid, expires_in: 1800, customer: { token: me.service_jwt } });
      expect(status).toBe(201);
      const events = await server.services.store.readStream(`checkout_session-${body.session.id}`);
      expect((events[0]!.data as Body).customer).toEqual({ email: org.email, name: null, user_id: org.userId });
      expect(body.session.expires_at - (events[0]!.data as Body).created_at).toBe(1800);
    });

    it('refuses a forged or expired customer token with 422', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const forged = await new SignJWT({ email: 'x@example.com' })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('usr_x')
        .setIssuer('commerce-service')
        .sign(new TextEncoder().encode('not-the-secret-not-the-secret-not-the-secret'));
      const expired = await new SignJWT({})
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject('usr_x')
        .setIssuer('commerce-service')
        .setExpirationTime(Math.floor(Date.now() / 1000) - 10)
        .sign(server.services.secrets.jwt);
      for (const token of [forged, expired, 'not.a.jwt']) {
        const { status, body } = await create({ offer: offer.slug, customer: { token } });
        expect(status).toBe(422);
        expect(body).toMatchObject({ code: 'invalid_customer_token', message: 'The customer token is invalid or expired.' });
      }
    });

    it("refuses another organization's customer token like an invalid one, and records nothing", async () => {
      const offer = await makeOffer(server, org.organizationId);
      const stranger = await server.identity('Token stranger');
      const me = (await (await server.fetch('/api/users/me', { token: stranger.token })).json()) as Body;
      const orgless = await new SignJWT({ email: stranger.email })
        .setProtectedHeader({ alg: 'HS256' })
        .setSubject(stranger.userId)
        .setIssuer('commerce-service')
        .setExpirationTime(Math.floor(Date.now() / 1000) + 60)
        .sign(server.services.secrets.jwt);
      await server.settle();
      const head = await server.services.store.headPosition();
      for (const token of [me.service_jwt as string, orgless]) {
        const { status, body } = await create({ offer: offer.slug, customer: { token } });
        expect(status).toBe(422);
        expect(body).toEqual({
          message: 'The customer token is invalid or expired.',
          code: 'invalid_customer_token',
          errors: { 'customer.token': ['The customer token is invalid or expired.'] },
        });
      }
      expect(await server.services.store.headPosition()).toBe(head);
    });

    it('answers live mode without a provider with a clear 422', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { status, body } = await create({ offer: offer.slug, mode: 'live' });
      expect(status).toBe(422);
      expect(body.code).toBe('live_mode_unavailable');
    });

    it.each([
      ['no offer', {}, 'offer'],
      ['a numeric offer', { offer: 5 }, 'offer'],
      ['expires_in below 30 minutes', { offer: 'x', expires_in: 1799 }, 'expires_in'],
      ['expires_in above 24 hours', { offer: 'x', expires_in: 86_401 }, 'expires_in'],
      ['an unknown mode', { offer: 'x', mode: 'preview' }, 'mode'],
      ['a nested metadata value', { offer: 'x', metadata: { a: { b: 1 } } }, 'metadata.a'],
      ['a metadata key over 40 characters', { offer: 'x', metadata: { ['k'.repeat(41)]: 'v' } }, 'metadata'],
      ['a metadata value over 500 characters', { offer: 'x', metadata: { k: 'v'.repeat(501) } }, 'metadata.k'],
      ['21 metadata keys', { offer: 'x', metadata: Object.fromEntries(Array.from({ length: 21 }, (_, i) => [`k${i}`, 'v'])) }, 'metadata'],
      ['a customer with a bad email', { offer: 'x', customer: { email: 'nope' } }, 'customer.email'],
      ['an empty customer', { offer: 'x', customer: {} }, 'customer'],
      ['a customer with token and email', { offer: 'x', customer: { token: 'a', email: 'a@b.co' } }, 'customer'],
      ['a bad promo slug', { offer: 'x', promo: 'Not A Slug' }, 'promo'],
    ])('answers 422 for %s', async (_name, body, field) => {
      const result = await create(body);
      expect(result.status).toBe(422);
      expect(result.body.code).toBe('validation_failed');
      expect(Object.keys(result.body.errors).some((k) => k.startsWith(field))).toBe(true);
      expect(typeof result.body.message).toBe('string');
    });

    it('answers 404 for an offer that is not published', async () => {
      const draft = await makeOffer(server, org.organizationId, { publish: false });
      expect((await create({ offer: draft.slug })).status).toBe(404);
    });

    it('answers 400 for malformed JSON and 415 for a body that is not JSON', async () => {
      const bad = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"offer":' });
      expect(bad.status).toBe(400);
      const text = await server.fetch('/api/checkout/sessions', { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'offer=x' });
      expect(text.status).toBe(415);
    });

    it('charges the current tier price of a promo of the same organization; others leave the offer price', async () => {
      const offer = await makeOffer(server, org.organizationId);
      await activePromo(org.organizationId, { slug: 'launch-tiers', name: 'Launch', tier: 'Early bird', price: 1500, offers: [offer.slug] });
      const stranger = await server.identity('Promo stranger');
      await activePromo(stranger.organizationId, { slug: 'foreign-promo', name: 'Foreign', tier: 'Half', discount: 50 });
      await server.settle();
      const discounted = await create({ offer: offer.slug, promo: 'launch-tiers' });
      expect(discounted.body.session.total).toBe(1500);
      const started = await server.fetch(`/api/checkout/sessions/${discounted.body.session.id}/start`, { method: 'POST' });
      expect(((await started.json()) as Body).invoice.total).toBe(1500);
      const [invoiceCreated] = (await server.services.store.readAll({ after: null, limit: 1_000_000 })).filter(
        (e) => e.type === 'InvoiceCreated' && (e.data as Body).session_id === discounted.body.session.id,
      );
      // Each line names the product it sells (a coupon's applies_to), the promo's adjustment too.
      const product_id = (invoiceCreated!.data as Body).lines[0].product_id as string;
      expect(product_id).toEqual(expect.any(String));
      expect((invoiceCreated!.data as Body).lines).toEqual([
        { name: 'Pro monthly', amount: 1900, product_id },
        { name: 'Setup fee', amount: 500, product_id },
        { name: 'Promo launch-tiers: Early bird', amount: -900, product_id },
      ]);
      expect((await create({ offer: offer.slug, promo: 'foreign-promo' })).body.session.total).toBe(2400);
      expect((await create({ offer: offer.slug, promo: 'no-such-promo' })).body.session.total).toBe(2400);
    });

    it("leaves the offer's price when the promo names other offers: a buyer cannot take one offer's promo price to another", async () => {
      const cheap = await makeOffer(server, org.organizationId);
      const dear = await makeOffer(server, org.organizationId, {
        content: { plan: { ...offerContent().plan, charges: [{ id: 'c1', name: 'Enterprise yearly', amount: 99_900 }] } },
      });
      await activePromo(org.organizationId, { slug: 'cheap-only', name: 'Cheap only', tier: 'One dollar', price: 100, offers: [cheap.slug] });
      await server.settle();
      expect((await create({ offer: cheap.slug, promo: 'cheap-only' })).body.session).toMatchObject({ total: 100, promo: 'cheap-only', promo_tier: 'One dollar' });
      const taken = await create({ offer: dear.slug, promo: 'cheap-only' });
      expect(taken.status).toBe(201);
      // Recorded, and said to have priced nothing: what the hosted page reads before naming a promo.
      expect(taken.body.session).toMatchObject({ total: 99_900, promo: 'cheap-only', promo_tier: null });
    });

    it('records the promo slug it was given', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body } = await create({ offer: offer.slug, promo: 'black-friday' });
      expect(body.session).toMatchObject({ promo: 'black-friday', promo_tier: null });
      const [created] = await server.services.store.readStream(`checkout_session-${body.session.id}`);
      expect((created!.data as Body).promo).toBe('black-friday');
    });
  });

  describe('Idempotency-Key', () => {
    it('replays the first response for the same key and body', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const first = await create({ offer: offer.slug }, { 'idempotency-key': 'key-replay-1' });
      const second = await create({ offer: offer.slug }, { 'idempotency-key': 'key-replay-1' });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body).toEqual(first.body);
      expect(second.headers.get('idempotent-replayed')).toBe('true');
    });

    it('answers 422 for the same key with another body', async () => {
      const offer = await makeOffer(server, org.organizationId);
      await create({ offer: offer.slug }, { 'idempotency-key': 'key-mismatch-1' });
      const other = await create({ offer: offer.slug, metadata: { a: 'b' } }, { 'idempotency-key': 'key-mismatch-1' });
      expect(other.status).toBe(422);
      expect(other.body.code).toBe('idempotency_key_reused');
      // Under the same name as the header's other errors (a key over 255 characters, an empty one).
      expect(Object.keys(other.body.errors)).toEqual(['idempotency-key']);
      const tooLong = await create({ offer: offer.slug }, { 'idempotency-key': 'k'.repeat(256) });
      expect(Object.keys(tooLong.body.errors)).toEqual(['idempotency-key']);
    });

    it('does not store validation failures or refusals against the key', async () => {
      const offer = await makeOffer(server, org.organizationId);
      expect((await create({ offer: offer.slug, expires_in: 5 }, { 'idempotency-key': 'key-invalid-1' })).status).toBe(422);
      expect((await create({ offer: 'unknown-offer' }, { 'idempotency-key': 'key-invalid-1' })).status).toBe(404);
      const ok = await create({ offer: offer.slug }, { 'idempotency-key': 'key-invalid-1' });
      expect(ok.status).toBe(201);
    });

    it('refuses a key over 255 characters', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const result = await create({ offer: offer.slug }, { 'idempotency-key': 'k'.repeat(256) });
      expect(result.status).toBe(422);
    });

    it('creates one session for concurrent duplicates', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const results = await Promise.all(Array.from({ length: 20 }, () => create({ offer: offer.slug }, { 'idempotency-key': 'key-concurrent-1' })));
      expect(results.map((r) => r.status)).toEqual(Array(20).fill(201));
      expect(new Set(results.map((r) => r.body.session.id)).size).toBe(1);
      const events = await server.services.store.readAll({ after: null, limit: 1_000_000 });
      const sessions = events.filter((e) => e.type === 'CheckoutSessionCreated' && (e.data as Body).offer.uuid === offer.uuid);
      expect(sessions).toHaveLength(1);
    });

    it("keeps keys per organization: another seller's offer with the same key gets its own session", async () => {
      const mine = await makeOffer(server, org.organizationId);
      const other = await server.identity('Idempotency stranger');
      const theirs = await makeOffer(server, other.organizationId, { content: { currency: 'USD' } });
      const headers = { 'idempotency-key': 'key-scope-1' };
      const first = await create({ offer: mine.slug }, headers);
      const stranger = await create({ offer: theirs.slug }, headers);
      expect(first.status).toBe(201);
      expect(stranger.status).toBe(201);
      expect(stranger.headers.get('idempotent-replayed')).toBeNull();
      expect(stranger.body.session.id).not.toBe(first.body.session.id);
      expect(stranger.body).toMatchObject({ session: { currency: 'USD' }, offer: { id: theirs.id } });
      const [created] = await server.services.store.readStream(`checkout_session-${stranger.body.session.id}`);
      expect((created!.data as Body).organization_id).toBe(other.organizationId);
      // Within each organization the key still replays its own first answer.
      expect((await create({ offer: mine.slug }, headers)).body).toEqual(first.body);
      expect((await create({ offer: theirs.slug }, headers)).body).toEqual(stranger.body);
      expect((await create({ offer: theirs.slug, metadata: { a: 'b' } }, headers)).body.code).toBe('idempotency_key_reused');
    });

    it('replays the first answer after the offer was archived', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const first = await create({ offer: offer.slug }, { 'idempotency-key': 'key-archived-1' });
      await archiveOffer(server.cliContext(org.organizationId), offer.uuid);
      await server.settle();
      const replay = await create({ offer: offer.slug }, { 'idempotency-key': 'key-archived-1' });
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);
      expect((await create({ offer: offer.slug }, { 'idempotency-key': 'key-archived-2' })).status).toBe(404);
    });

    it('keeps a key: another body with it is refused later on too', async () => {
      const offer = await makeOffer(server, org.organizationId);
      await create({ offer: offer.slug }, { 'idempotency-key': 'key-ttl-1' });
      expect((await create({ offer: offer.uuid }, { 'idempotency-key': 'key-ttl-1' })).status).toBe(422);
    });
  });

  describe('session interaction', () => {
    const post = async (path: string, body?: unknown) => {
      const response = await server.fetch(path, body === undefined ? { method: 'POST' } : json(body));
      return { status: response.status, body: (await response.json()) as Body };
    };

    it('open → start (invoice, once) → declined (stays open) → paid (completed)', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const id = created.session.id as string;

      const started = await post(`/api/checkout/sessions/${id}/start`, { email: 'buyer@example.com', name: 'Ada' });
      expect(started.status).toBe(200);
      expect(started.body.invoice).toMatchObject({ status: 'open', total: 2400, currency: 'EUR' });
      expect(started.body.session).toMatchObject({ id, status: 'open' });
      const again = await post(`/api/checkout/sessions/${id}/start`);
      expect(again.body.invoice.id).toBe(started.body.invoice.id);
      expect(again.body.invoice.number).toBe(started.body.invoice.number);

      const declined = await post(`/api/checkout/sessions/${id}/pay`, { card: DECLINED_CARD });
      expect(declined.status).toBe(402);
      expect(declined.body).toMatchObject({ code: 'card_declined', message: 'Your card was declined.' });
      const insufficient = await post(`/api/checkout/sessions/${id}/pay`, { card: { ...GOOD_CARD, number: '4000000000009995' } });
      expect(insufficient.status).toBe(402);
      expect(insufficient.body).toMatchObject({ code: 'card_declined', decline_code: 'insufficient_funds' });
      expect((await server.fetch(`/api/checkout/sessions/${id}`).then((r) => r.json()) as Body).session.status).toBe('open');

      const paid = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
      expect(paid.status).toBe(200);
      expect(paid.body).toMatchObject({
        session: { id, status: 'completed' },
        invoice: { id: started.body.invoice.id, status: 'paid', total: 2400 },
        payment: { brand: 'visa', last4: '4242' },
      });

      const read = (await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as Body;
      expect(read).toEqual({
        session: {
          id,
          status: 'completed',
          total: 2400,
          currency: 'EUR',
          mode: 'test',
          expires_at: created.session.expires_at,
          promo: null,
          promo_tier: null,
          invoice: {
            id: started.body.invoice.id,
            number: started.body.invoice.number,
            status: 'paid',
            total: 2400,
            currency: 'EUR',
            amount_refunded: 0,
            refund_status: null,
            subtotal: 2400,
            tax: null,
            total_discount_amounts: [],
            total_tax_amounts: [],
            discounts: [],
            customer_details: null,
          },
          amount_refunded: 0,
          refund_status: null,
          subscription: null,
          amount_subtotal: 2400,
          total_details: { amount_discount: 0, amount_tax: 0, breakdown: { discounts: [], taxes: [] } },
          discounts: [],
          customer_details: null,
        },
        offer: { id: offer.id, slug: offer.slug, name: 'Pro plan' },
      });

      // Completed is final.
      const payAgain = await post(`/api/checkout/sessions/${id}/pay`, { card: GOOD_CARD });
      expect(payAgain.status).toBe(409);
      expect(payAgain.body).toMatchObject({ code: 'session_completed', message: 'The checkout session is already completed.' });
      const cancel = await post(`/api/checkout/sessions/${id}/cancel`);
      expect(cancel.status).toBe(409);
      const startAgain = await post(`/api/checkout/sessions/${id}/start`);
      expect(startAgain.status).toBe(409);
    });

    it('pay starts the session itself when start was skipped', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const paid = await post(`/api/checkout/sessions/${created.session.id}/pay`, { card: { ...GOOD_CARD, number: '5555555555554444' } });
      expect(paid.status).toBe(200);
      expect(paid.body.payment).toEqual({ brand: 'mastercard', last4: '4444' });
    });

    it('numbers invoices 1, 2, 3 per organization', async () => {
      const other = await server.identity('Numbering Org');
      const offer = await makeOffer(server, other.organizationId);
      const numbers: number[] = [];
      for (let i = 0; i < 3; i++) {
        const { body } = await create({ offer: offer.slug });
        numbers.push((await post(`/api/checkout/sessions/${body.session.id}/start`)).body.invoice.number);
      }
      expect(numbers).toEqual([1, 2, 3]);
    });

    it('records a cancel and keeps the session open', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const cancelled = await post(`/api/checkout/sessions/${created.session.id}/cancel`);
      expect(cancelled.status).toBe(200);
      expect(cancelled.body.session.status).toBe('open');
      const events = await server.services.store.readStream(`checkout_session-${created.session.id}`);
      expect(events.map((e) => e.type)).toEqual(['CheckoutSessionCreated', 'CheckoutSessionCancelled']);
    });

    it.each([
      ['a card number with letters', { card: { ...GOOD_CARD, number: '4242abcd42424242' } }],
      ['a month of 13', { card: { ...GOOD_CARD, exp_month: 13 } }],
      ['a missing cvc', { card: { number: GOOD_CARD.number, exp_month: 1, exp_year: 2030 } }],
      ['no card', {}],
      ['a string card', { card: '4242424242424242' }],
    ])('pay answers 422 for %s', async (_name, body) => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const result = await post(`/api/checkout/sessions/${created.session.id}/pay`, body);
      expect(result.status).toBe(422);
      expect(result.body.code).toBe('validation_failed');
    });

    it('pay takes two-digit years and numbers sent as strings', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const paid = await post(`/api/checkout/sessions/${created.session.id}/pay`, { card: { number: '4242-4242-4242-4242', exp_month: '12', exp_year: 99, cvc: '123' } });
      expect(paid.status).toBe(200);
    });

    it('pay answers 402 for a number failing Luhn and for an expired card', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const luhn = await post(`/api/checkout/sessions/${created.session.id}/pay`, { card: { ...GOOD_CARD, number: '4242424242424241' } });
      expect(luhn.status).toBe(402);
      expect(luhn.body.code).toBe('incorrect_number');
      const expired = await post(`/api/checkout/sessions/${created.session.id}/pay`, { card: { ...GOOD_CARD, exp_year: 2001 } });
      expect(expired.status).toBe(402);
      expect(expired.body.code).toBe('expired_card');
    });

    it.each(['start', 'pay', 'cancel'])('%s answers 404 for an unknown session and 422 for a malformed id', async (action) => {
      const body = action === 'pay' ? { card: GOOD_CARD } : undefined;
      const unknown = await post(`/api/checkout/sessions/cs_AAAAAAAAAAAAAAAAAAAAAAAA/${action}`, body);
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual({ message: 'Checkout session not found.', code: 'not_found' });
      const malformed = await post(`/api/checkout/sessions/${encodeURIComponent('../../etc')}/${action}`, body);
      expect([404, 422]).toContain(malformed.status);
    });

    it('GET answers 404 for an unknown session', async () => {
      const response = await server.fetch('/api/checkout/sessions/cs_AAAAAAAAAAAAAAAAAAAAAAAA');
      expect(response.status).toBe(404);
    });
  });

  describe('bad input on every route', () => {
    const junk: Array<[string, string | undefined, string]> = [
      ['null', 'null', 'application/json'],
      ['an array', '[1,2]', 'application/json'],
      ['a string', '"x"', 'application/json'],
      ['a number', '42', 'application/json'],
      ['deep nesting', '{"card":'.repeat(50) + '1' + '}'.repeat(50), 'application/json'],
      ['broken JSON', '{"a":', 'application/json'],
      ['form data', 'a=1', 'application/x-www-form-urlencoded'],
    ];
    it('answers 4xx JSON with a message, never 500', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const { body: created } = await create({ offer: offer.slug });
      const id = created.session.id as string;
      const paths = ['/api/checkout/sessions', `/api/checkout/sessions/${id}/start`, `/api/checkout/sessions/${id}/pay`, `/api/checkout/sessions/${id}/cancel`];
      for (const path of paths) {
        for (const [, body, type] of junk) {
          const response = await server.fetch(path, { method: 'POST', headers: { 'content-type': type }, body });
          // start takes no body (null) and drops unknown keys, cancel reads none: those may succeed; nothing may fail with 5xx.
          const mayPass =
            (path.endsWith('/start') && (body === 'null' || body!.startsWith('{"card":'))) ||
            (path.endsWith('/cancel') && type === 'application/json' && body !== '{"a":');
          if (!mayPass) {
            expect(response.status, `${path} ${body}`).toBeGreaterThanOrEqual(400);
            expect(typeof ((await response.json()) as Body).message).toBe('string');
          }
          expect(response.status, `${path} ${body}`).toBeLessThan(500);
        }
      }
      for (const query of ['offer[]=a', 'offer=a&offer=b', `offer=${'x'.repeat(300)}`, 'offer=%00', 'offer_id[a]=b']) {
        const response = await server.fetch(`/api/checkout?${query}`);
        expect(response.status, query).toBeGreaterThanOrEqual(400);
        expect(response.status, query).toBeLessThan(500);
      }
      for (const bad of ['x'.repeat(200), 'a.b', '%2e%2e', 'cs_%00']) {
        const response = await server.fetch(`/api/checkout/sessions/${bad}`);
        expect(response.status, bad).toBeGreaterThanOrEqual(400);
        expect(response.status, bad).toBeLessThan(500);
      }
      // Still open: nothing above changed it.
      expect(((await (await server.fetch(`/api/checkout/sessions/${id}`)).json()) as Body).session.status).toBe('open');
    });
  });

  describe('CORS', () => {
    it('answers a browser preflight on the public routes', async () => {
      for (const path of ['/api/checkout/sessions', '/api/checkout/sessions/cs_x/pay', '/api/checkout']) {
        const response = await server.fetch(path, {
          method: 'OPTIONS',
          headers: {
            origin: 'https://shop.example.com',
            'access-control-request-method': 'POST',
            'access-control-request-headers': 'content-type,idempotency-key',
          },
        });
        expect(response.status).toBe(204);
        expect(response.headers.get('access-control-allow-origin')).toBe('*');
        expect(response.headers.get('access-control-allow-methods')).toContain('POST');
        expect(response.headers.get('access-control-allow-headers')?.toLowerCase()).toContain('idempotency-key');
      }
    });

    it('sends Access-Control-Allow-Origin on public responses but not on protected ones', async () => {
      const offer = await makeOffer(server, org.organizationId);
      const pub = await server.fetch(`/api/checkout?offer=${offer.slug}`, { headers: { origin: 'https://shop.example.com' } });
      expect(pub.headers.get('access-control-allow-origin')).toBe('*');
      const prot = await server.fetch('/api/checkout/sessions', { token: org.token, headers: { origin: 'https://shop.example.com' } });
      expect(prot.status).toBe(200);
      expect(prot.headers.get('access-control-allow-origin')).toBeNull();
      const me = await server.fetch('/api/users/me', { token: org.token, headers: { origin: 'https://shop.example.com' } });
      expect(me.headers.get('access-control-allow-origin')).toBeNull();
    });
  });
});

describe('rate limit on public checkout routes', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '3', CHECKOUT_RATE_LIMIT_WINDOW_SECONDS: '60' } });
  });
  afterAll(() => server.close({ remove: true }));

  it('answers 429 Too Many Attempts. with Retry-After and X-RateLimit-* past the limit', async () => {
    const statuses: number[] = [];
    let last: Response | null = null;
    for (let i = 0; i < 4; i++) {
      last = await server.fetch('/api/checkout?offer=nothing-here');
      statuses.push(last.status);
    }
    expect(statuses).toEqual([404, 404, 404, 429]);
    expect(await last!.json()).toEqual({ message: 'Too Many Attempts.', code: 'too_many_attempts' });
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(last!.headers.get('x-ratelimit-limit')).toBe('3');
    expect(last!.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(last!.headers.get('x-ratelimit-reset')).not.toBeNull();
  });
});
