import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ImportValidationError, runImport } from '../../app/import/importFile.ts';
import { createCoupon, createPromotionCode, deleteCoupon } from '../../modules/discounts/discountCommands.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { json } from './checkoutFixtures.ts';

type Body = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

const theme = { primary_color: '#0f766e' };
const pages = [{ id: 'pay', type: 'checkout', title: 'Checkout' }];
const offer = (slug: string, extra: Record<string, unknown> = {}) => ({ slug, name: slug, product: 'ebook', plan: 'once', theme, pages, published: true, ...extra });

/** A coupon the seller attaches to an offer: through the management routes and the import file. */
describe('an offer with a coupon attached', () => {
  let server: TestServer;
  let owner: ManageClient;
  let organizationId: string;
  const importFile = (file: Record<string, unknown>) => runImport({ command: server.cliContext(organizationId), organizationId, catchUp: () => server.settle() }, file);
  const create = async (body: Record<string, unknown>) => {
    const response = await server.fetch('/api/checkout/sessions', json(body));
    return { status: response.status, body: (await response.json()) as Body };
  };

  beforeAll(async () => {
    server = await startTestServer({ env: { CHECKOUT_RATE_LIMIT: '10000' } });
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
    const ctx = server.cliContext(organizationId);
    await createCoupon(ctx, { organizationId, id: 'SUMMER', name: 'Summer', amount_off: 300, currency: 'eur', duration: 'once' });
    await createCoupon(ctx, { organizationId, id: 'HALF', percent_off: 50, duration: 'once' });
    await createPromotionCode(ctx, { organizationId, coupon: 'HALF', code: 'HALFOFF' });
    await importFile({ products: [{ key: 'ebook', published: true, plans: [{ name: 'once', display_name: 'E-book', type: 'one_time', currency_code: 'EUR', charges: [{ amount: 1000 }] }] }] });
  });
  afterAll(() => server.close({ remove: true }));

  it('is kept through the management routes and starts every session with its discount; a code replaces it', async () => {
    const created = await owner.json<Body>('POST', '/manage/api/offers', offer('ebook-summer', { coupon: 'SUMMER' }));
    expect(created.status).toBe(201);
    expect(created.body.coupon).toBe('SUMMER');
    const session = await create({ offer: 'ebook-summer' });
    expect(session.body.session).toMatchObject({ total: 700, total_details: { amount_discount: 300 }, discounts: [{ coupon: { id: 'SUMMER' }, promotion_code: null }] });
    const coded = await create({ offer: 'ebook-summer', discount_code: 'halfoff' });
    expect(coded.body.session).toMatchObject({ total: 500, discounts: [{ coupon: { id: 'HALF' }, promotion_code: { code: 'HALFOFF' } }] });

    // Edited without it: sessions sell at the offer's price again.
    const edited = await owner.json<Body>('PUT', `/manage/api/offers/${created.body.uuid}`, offer('ebook-summer'));
    expect(edited.body.coupon).toBeNull();
    expect((await create({ offer: 'ebook-summer' })).body.session).toMatchObject({ total: 1000, discounts: [] });
  });

  it('refuses a coupon the organization does not have, on the route and in the import file', async () => {
    const refused = await owner.json<Body>('POST', '/manage/api/offers', offer('ebook-nope', { coupon: 'NOPE' }));
    expect(refused.status).toBe(422);
    expect(refused.body.errors).toEqual({ coupon: ['No coupon NOPE in this organization.'] });
    let error: unknown;
    try {
      await importFile({ offers: [offer('ebook-nope', { coupon: 'NOPE' })] });
    } catch (e) {
      error = e;
    }
    expect((error as ImportValidationError).issues).toEqual([{ path: 'offers[0].coupon', message: 'No coupon NOPE in this organization.' }]);
    await importFile({ offers: [offer('ebook-half', { coupon: 'HALF' })] });
    expect((await create({ offer: 'ebook-half' })).body.session.total).toBe(500);
    // A coupon the same file brings (its section is applied after the offers) may be named too.
    await importFile({ offers: [offer('ebook-fresh', { coupon: 'FRESH' })], coupons: [{ id: 'FRESH', percent_off: 30, duration: 'once' }] });
    expect((await create({ offer: 'ebook-fresh' })).body.session.total).toBe(700);
  });

  it('sells at the offer\'s price once the coupon can no longer apply', async () => {
    await importFile({ offers: [offer('ebook-gone', { coupon: 'SUMMER' })] });
    await deleteCoupon(server.cliContext(organizationId), organizationId, 'SUMMER');
    expect((await create({ offer: 'ebook-gone' })).body.session).toMatchObject({ total: 1000, discounts: [] });
  });
});
