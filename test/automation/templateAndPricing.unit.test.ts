import { describe, expect, it } from 'vitest';
import { prepareRequest } from '../../modules/automation/sendWebhook.ts';
import { jsonProblem, jsonTemplateProblem, renderJsonTemplate, renderTextTemplate } from '../../modules/automation/domain/template.ts';
import { currentTier, discountedAmount, priceUnderPromo, promoPricesOffer, promoState, tierEndsAt, type PromoFacts } from '../../modules/promos/domain/pricing.ts';
import { promoDecider, type PromoEvent } from '../../modules/promos/domain/promo.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

describe('templates', () => {
  const scope = { webhook_payload: { email: 'a"b\\c@example.com', n: 3, o: { x: [1] }, nil: null }, webhook_query: { q: 'v' } };
  it('fills JSON-escaped values into a JSON template', () => {
    const out = renderJsonTemplate('{"e":"{{webhook_payload.email}}","n":{{ webhook_payload.n }},"o":{{webhook_payload.o}},"q":"{{webhook_query.q}}","m":"{{webhook_payload.missing}}"}', scope);
    expect(JSON.parse(out)).toEqual({ e: 'a"b\\c@example.com', n: 3, o: { x: [1] }, q: 'v', m: '' });
  });
  it('does not let a value break out of its string', () => {
    const out = renderJsonTemplate('{"e":"{{webhook_payload.email}}","admin":false}', { webhook_payload: { email: '","admin":true,"x":"' } });
    expect(JSON.parse(out)).toEqual({ e: '","admin":true,"x":"', admin: false });
  });
  it('renders a missing or null value as null outside a string and empty inside one, so the JSON stays whole', () => {
    const template = '{"n":{{webhook_payload.n}},"nil":{{webhook_payload.nil}},"s":"{{webhook_payload.n}}","list":[{{webhook_payload.n}}, 1]}';
    expect(renderJsonTemplate(template, { webhook_payload: {} })).toBe('{"n":null,"nil":null,"s":"","list":[null, 1]}');
    expect(JSON.parse(renderJsonTemplate(template, scope))).toEqual({ n: 3, nil: null, s: '3', list: [3, 1] });
  });
  it('knows where strings are: escaped quotes and backslashes, and keys', () => {
    const template = '{"a\\"b:{{webhook_payload.nil}}":{{webhook_payload.nil}},"{{webhook_payload.n}}":"x\\\\","y":{{webhook_payload.nil}}}';
    expect(JSON.parse(renderJsonTemplate(template, scope))).toEqual({ 'a"b:': null, '3': 'x\\', y: null });
  });
  it('puts an object or array inside a string as escaped JSON text, not raw', () => {
    expect(JSON.parse(renderJsonTemplate('{"o":"{{webhook_payload.o}}"}', scope))).toEqual({ o: '{"x":[1]}' });
  });
  it('renders a string outside quotes as its text, which may not be JSON: the sender checks', () => {
    expect(renderJsonTemplate('{"n":{{webhook_payload.s}}}', { webhook_payload: { s: '5' } })).toBe('{"n":5}');
    const broken = renderJsonTemplate('{"n":{{webhook_payload.s}}}', { webhook_payload: { s: 'abc' } });
    expect(broken).toBe('{"n":abc}');
    expect(jsonProblem(broken)).toEqual(expect.any(String));
  });
  it('tells a payload template that cannot render JSON from one that can', () => {
    for (const ok of ['', '{}', '{"n":{{webhook_payload.n}}}', '{"e":"{{webhook_payload.email}}"}', '[{{webhook_query.a}}, "{{webhook_query.b}}"]', '{{webhook_payload}}']) {
      expect(jsonTemplateProblem(ok), ok).toBeNull();
    }
    for (const bad of ['not json', '{"n":{{webhook_payload.n}}', '{"n":}', '{{webhook_payload.a}}{{webhook_payload.b}}', '{"e":"{{webhook_payload.email}}}']) {
      expect(jsonTemplateProblem(bad), bad).toEqual(expect.any(String));
    }
  });
  it('renders plain text values and ignores prototype paths', () => {
    expect(renderTextTemplate('{{webhook_payload.email}}', scope)).toBe('a"b\\c@example.com');
    expect(renderTextTemplate('{{webhook_payload.constructor}}', scope)).toBe('');
  });
  it('adds Content-Type only when a payload is sent without one', () => {
    const action = { type: 'send_webhook' as const, url: 'https://x.test/', method: 'POST' as const, payload: '{}', headers: {}, signing_secret: null };
    expect(prepareRequest(action, {}, 'k').headers['content-type']).toBe('application/json');
    expect(prepareRequest({ ...action, headers: { 'Content-Type': 'text/plain' } }, {}, 'k').headers['content-type']).toBe('text/plain');
    const framed = prepareRequest({ ...action, headers: { Host: '169.254.169.254', 'Content-Length': '1', 'Transfer-Encoding': 'chunked', 'Idempotency-Key': 'mine' } }, {}, 'k').headers;
    expect(framed).not.toHaveProperty('host');
    expect(framed).not.toHaveProperty('content-length');
    expect(framed).not.toHaveProperty('transfer-encoding');
    expect(framed['idempotency-key']).toBe('k');
    const get = prepareRequest({ ...action, method: 'GET', payload: '' }, {}, 'k');
    expect(get.payload).toBe('');
    expect(get.headers['content-type']).toBeUndefined();
  });
});

describe('promo pricing', () => {
  const promo = (participants_count: number, offers: string[] | null = ['pro']): PromoFacts => ({
    starts_at: 1000,
    ends_at: 5000,
    participants_count,
    offers,
    tiers: [
      { name: 'Early', price: 900, discount_percent: null, until: 2000, max_participants: 2 },
      { name: 'Half', price: null, discount_percent: 50, until: null, max_participants: 5 },
      { name: 'Late', price: null, discount_percent: 12.5, until: null, max_participants: null },
    ],
  });
  it('is scheduled, active, then ended', () => {
    expect(promoState(promo(0), 999)).toBe('scheduled');
    expect(promoState(promo(0), 1000)).toBe('active');
    expect(promoState(promo(0), 5000)).toBe('ended');
  });
  it('moves to the next tier by time and by participant count', () => {
    expect(currentTier(promo(0), 1500)?.name).toBe('Early');
    expect(currentTier(promo(0), 2000)?.name).toBe('Half');
    expect(currentTier(promo(2), 1500)?.name).toBe('Half');
    expect(currentTier(promo(5), 1500)?.name).toBe('Late');
    expect(currentTier(promo(0), 999)).toBeNull();
    expect(currentTier(promo(0), 5000)).toBeNull();
    expect(tierEndsAt(promo(0), 1500)).toBe(2000);
    expect(tierEndsAt(promo(5), 1500)).toBe(5000);
  });
  it('prices an offer under the current tier', () => {
    expect(priceUnderPromo(promo(0), 2000, 1500)).toEqual({ amount: 900, tier: 'Early', tier_index: 0 });
    expect(priceUnderPromo(promo(2), 1999, 1500)).toEqual({ amount: 1000, tier: 'Half', tier_index: 1 });
    expect(priceUnderPromo(promo(9), 1000, 1500)).toEqual({ amount: 875, tier: 'Late', tier_index: 2 });
    expect(priceUnderPromo(promo(0), 2000, 6000)).toBeNull();
  });
  it('rounds a fractional discount half up on the exact amount, not on a floating-point approximation of it', () => {
    const pointFour: PromoFacts = {
      starts_at: 1000,
      ends_at: 5000,
      participants_count: 0,
      tiers: [{ name: 'Small', price: null, discount_percent: 0.4, until: null, max_participants: null }],
    };
    // 2625 less 0.4 % is 2614.5 exactly (floating point reads 2614.4999…); 2750 less 5.4 % is 2601.5.
    expect(priceUnderPromo(pointFour, 2625, 1500)?.amount).toBe(2615);
    expect(discountedAmount(2750, 5.4)).toBe(2602);
    expect(discountedAmount(1000, 33.333)).toBe(667);
    expect(discountedAmount(1999, 100)).toBe(0);
    expect(discountedAmount(1000, 1e-7)).toBe(1000);
  });
  it('prices only the offers a promo names, and by a fixed price only offers it names', () => {
    expect(promoPricesOffer(promo(0), 'pro')).toBe(true);
    expect(promoPricesOffer(promo(0), 'enterprise')).toBe(false);
    // Naming none: every offer, by its discount tiers only (a promo recorded before promos named offers).
    expect(promoPricesOffer(promo(0, null), 'enterprise')).toBe(true);
    expect(priceUnderPromo(promo(0, null), 99_900, 1500)).toBeNull();
    expect(priceUnderPromo(promo(2, null), 99_900, 1500)).toEqual({ amount: 49_950, tier: 'Half', tier_index: 1 });
  });
});

describe('promo decider', () => {
  const spec = deciderSpec(promoDecider);
  const tiers = [{ name: 'T', price: 100, discount_percent: null, until: null, max_participants: null }];
  const offers = ['pro'];
  const created: PromoEvent = { type: 'PromoCreated', data: { slug: 'p', organization_id: 'org_a', name: 'P', starts_at: 0, ends_at: 100, tiers, offers, created_at: 0 } };
  const enrol = { type: 'EnrolParticipant' as const, organizationId: 'org_a', email: ' A@Example.com ', reference: 'r', workflowId: 3, now: 10 };
  const enrolled: PromoEvent = { type: 'PromoParticipantEnrolled', data: { email: 'a@example.com', reference: 'r', enrolled_at: 10, workflow_id: 3 } };
  it('creates a promo and refuses bad tiers', () => {
    const create = { type: 'CreatePromo' as const, slug: 'p', organizationId: 'org_a', name: 'P', startsAt: 0, endsAt: 100, tiers, offers, now: 0 };
    spec.given([]).when(create).then([created]);
    spec.given([]).when({ ...create, tiers: [{ ...tiers[0]!, discount_percent: 10 }] }).thenThrows('invalid_tier');
    spec.given([]).when({ ...create, slug: 'Bad Slug' }).thenThrows('invalid_slug');
    spec.given([]).when({ ...create, offers: [] }).thenThrows('invalid_offers');
  });
  it('refuses a fixed price that names no offers: the buyer names the promo, and could take it to any offer', () => {
    const create = { type: 'CreatePromo' as const, slug: 'p', organizationId: 'org_a', name: 'P', startsAt: 0, endsAt: 100, tiers, offers: null, now: 0 };
    spec.given([]).when(create).thenThrows('offers_required');
    const discount = [{ ...tiers[0]!, price: null, discount_percent: 10 }];
    spec.given([]).when({ ...create, tiers: discount }).then([{ type: 'PromoCreated', data: { ...created.data, tiers: discount, offers: null } } as PromoEvent]);
    spec.given([created]).when({ ...create, type: 'UpdatePromo', endsAt: 200 }).thenThrows('offers_required');
  });
  it('updates a promo only when something changed, within its organization', () => {
    const update = { type: 'UpdatePromo' as const, organizationId: 'org_a', name: 'P', startsAt: 0, endsAt: 100, tiers, offers, now: 5 };
    spec.given([created]).when(update).then([]);
    spec.given([created]).when({ ...update, endsAt: 200 }).then([{ type: 'PromoUpdated', data: { name: 'P', starts_at: 0, ends_at: 200, tiers, offers, updated_at: 5 } }]);
    spec.given([created]).when({ ...update, offers: ['pro', 'team'] }).then([{ type: 'PromoUpdated', data: { name: 'P', starts_at: 0, ends_at: 100, tiers, offers: ['pro', 'team'], updated_at: 5 } }]);
    spec.given([created]).when({ ...update, organizationId: 'org_b' }).thenThrows('not_found');
  });
  it('enrols an email once (normalised), refuses after the end and for another organization', () => {
    spec.given([created]).when(enrol).then([enrolled]);
    spec.given([created, enrolled]).when({ ...enrol, email: 'a@example.com' }).then([]);
    spec.given([created]).when({ ...enrol, now: 100 }).thenThrows('promo_ended');
    spec.given([created]).when({ ...enrol, organizationId: 'org_b' }).thenThrows('not_found');
    spec.given([created]).when({ ...enrol, email: 'nope' }).thenThrows('invalid_email');
    spec.given([created]).when({ ...enrol, email: '["a@example.com"]' }).thenThrows('invalid_email');
    spec.given([created]).when({ ...enrol, email: `${'a'.repeat(250)}@example.com` }).thenThrows('invalid_email');
  });
  it('remembers every enrolment, the first and the latest alike, across an update', () => {
    const many = Array.from({ length: 50 }, (_, i): PromoEvent => ({
      type: 'PromoParticipantEnrolled',
      data: { email: `p${i}@example.com`, reference: null, enrolled_at: 10, workflow_id: i },
    }));
    const updated: PromoEvent = { type: 'PromoUpdated', data: { name: 'P2', starts_at: 0, ends_at: 200, tiers, offers, updated_at: 5 } };
    const history = [created, ...many.slice(0, 25), updated, ...many.slice(25)];
    for (const email of ['p0@example.com', 'p24@example.com', 'p25@example.com', 'P49@example.com']) spec.given(history).when({ ...enrol, email }).then([]);
    spec.given(history).when({ ...enrol, email: 'p50@example.com' }).then([{ ...enrolled, data: { ...enrolled.data, email: 'p50@example.com' } }]);
  });
});
