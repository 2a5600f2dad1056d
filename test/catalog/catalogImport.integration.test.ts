import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError, parseImportJson } from '../../app/import/importFile.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { families, importProducts, plan, product, productResults } from './catalogFixtures.ts';

describe('catalog import', () => {
  let server: TestServer;
  let me: Awaited<ReturnType<TestServer['identity']>>;
  beforeAll(async () => {
    server = await startTestServer();
    me = await server.identity();
  });
  afterAll(() => server.close({ remove: true }));

  const list = async () =>
    ((await (await server.fetch('/api/catalog/products', { token: me.token })).json()) as { data: Array<Record<string, unknown>> }).data;

  it('rejects a bad file with every error listed, and writes nothing', async () => {
    const head = await server.services.store.headPosition();
    const bad = {
      families: [{ lookup_key: 'saas' }],
      products: [
        product('good'),
        product('bad key!', {
          family: 'missing',
          status: 'deleted',
          plans: [plan('m', { currency_code: 'euro', renew_interval: 'monthly' }), plan('m', { charges: [{ amount: -1 }] })],
        }),
        { key: 'x', surprise: true },
      ],
      offerz: [],
    };
    let error: unknown;
    try {
      await importProducts(server, me.organizationId, bad);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportValidationError);
    const paths = (error as ImportValidationError).issues.map((i) => i.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'offerz',
        'families[0].name',
        'products[1].key',
        'products[1].status',
        'products[1].plans[0].currency_code',
        'products[1].plans[0].renew_interval',
        'products[1].plans[1].charges[0].amount',
        'products[1].plans[1].name',
        'products[2]',
      ]),
    );
    for (const issue of (error as ImportValidationError).issues) expect(issue.message.length).toBeGreaterThan(0);
    expect(await server.services.store.headPosition()).toBe(head);
    expect(await list()).toEqual([]);
  });

  it('refuses amounts past twelve digits (a charge, charges together, a promo tier), and sells the largest price', async () => {
    // An organization of its own, so the other tests' product lists stay as they expect.
    const seller = await server.identity('Large amounts');
    const head = await server.services.store.headPosition();
    const huge = Number.MAX_SAFE_INTEGER;
    let error: unknown;
    try {
      await importProducts(server, seller.organizationId, {
        families,
        products: [
          product('huge', { plans: [plan('one', { charges: [{ amount: huge }] }), plan('two', { charges: [{ amount: 6e11 }, { amount: 6e11 }] })] }),
        ],
        promos: [{ slug: 'huge-promo', name: 'Huge', starts_at: 1, ends_at: 2, tiers: [{ name: 'All', price: huge }] }],
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ImportValidationError);
    expect((error as ImportValidationError).issues.map((i) => i.path)).toEqual(
      expect.arrayContaining(['products[0].plans[0].charges[0].amount', 'products[0].plans[1].charges', 'promos[0].tiers[0].price']),
    );
    expect(await server.services.store.headPosition()).toBe(head);

    // Two charges of 2^53 - 1 used to import, and their session's total then answered 500.
    await importProducts(server, seller.organizationId, {
      families,
      products: [product('largest', { plans: [plan('max', { charges: [{ amount: 999_999_999_000 }, { amount: 999 }] })] })],
      offers: [
        {
          slug: 'largest-price',
          name: 'Largest',
          product: 'largest',
          plan: 'max',
          published: true,
          theme: { primary_color: '#000000' },
          pages: [{ id: 'pay', type: 'checkout', title: 'Pay' }],
        },
      ],
    });
    const created = await server.fetch('/api/checkout/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ offer: 'largest-price' }),
    });
    expect(created.status).toBe(201);
    expect(((await created.json()) as { session: { total: number } }).session.total).toBe(999_999_999_999);
  });

  it('checks references between sections only once each section is valid alone, and still lists them all', async () => {
    let error: unknown;
    try {
      await importProducts(server, me.organizationId, {
        families,
        products: [product('a', { family: 'nope' }), product('a'), product('b', { family: 'other' })],
      });
    } catch (e) {
      error = e;
    }
    expect((error as ImportValidationError).issues.map((i) => i.path).sort()).toEqual(['products[0].family', 'products[1].key', 'products[2].family']);
    expect(await list()).toEqual([]);
  });

  it('reports JSON syntax errors as one issue', () => {
    expect(() => parseImportJson('{"products": [')).toThrow(ImportValidationError);
  });

  it('re-imports by key: no duplicates, version_number + 1 only when something changed', async () => {
    const file = { families, products: [product('alpha'), product('beta')] };
    const first = productResults(await importProducts(server, me.organizationId, file));
    expect(first.map((r) => [r.created, r.version_number])).toEqual([[true, 1], [true, 1]]);

    const again = productResults(await importProducts(server, me.organizationId, file));
    expect(again.map((r) => [r.id, r.created, r.changed, r.version_number])).toEqual([
      [first[0]!.id, false, false, 1],
      [first[1]!.id, false, false, 1],
    ]);

    const changed = {
      families,
      products: [
        product('alpha', { description: 'New words', plans: [plan('monthly', { charges: [{ amount: 2500 }] }), plan('yearly', { renew_interval: 'P1Y' })] }),
        product('beta'),
      ],
    };
    const third = productResults(await importProducts(server, me.organizationId, changed));
    expect(third.map((r) => [r.id, r.changed, r.version_number])).toEqual([
      [first[0]!.id, true, 2],
      [first[1]!.id, false, 1],
    ]);
    const products = await list();
    expect(products.map((p) => [p.id, p.version_number, p.description])).toEqual([
      [first[0]!.id, 2, 'New words'],
      [first[1]!.id, 1, 'About beta'],
    ]);
    const plans = ((await (await server.fetch(`/api/catalog/products/${first[0]!.id}/plans`, { token: me.token })).json()) as {
      data: Array<{ id: string; name: string; charges: Array<{ amount: number }> }>;
    }).data;
    expect(plans.map((p) => [p.name, p.charges[0]!.amount])).toEqual([
      ['monthly', 2500],
      ['yearly', 1900],
    ]);

    // Archiving through the file: one more version, status and archived_at in the list.
    await importProducts(server, me.organizationId, { families, products: [changed.products[0], product('beta', { status: 'archived' })] });
    const archived = (await list())[1]!;
    expect(archived).toMatchObject({ status: 'archived', version_number: 2, archived_at: expect.any(Number) });
  });

  it('makes one product of one key when two imports race', async () => {
    const file = (description: string) => ({ families, products: [product('racer', { description })] });
    const [a, b] = await Promise.all([
      importProducts(server, me.organizationId, file('first')),
      importProducts(server, me.organizationId, file('second')),
    ]);
    const ids = [...productResults(a), ...productResults(b)].map((r) => r.id);
    expect(new Set(ids).size).toBe(1);
    const racers = (await list()).filter((p) => p.name === 'racer');
    expect(racers).toHaveLength(1);
    expect(racers[0]!.version_number).toBe(2);
  });

  it('records a plan\'s tax_behavior; `unspecified` (the default) changes nothing on a re-import', async () => {
    const file = (taxBehavior?: string) => ({ families, products: [product('taxed', { plans: [plan('monthly', taxBehavior ? { tax_behavior: taxBehavior } : {})] })] });
    const [first] = productResults(await importProducts(server, me.organizationId, file()));
    const plansOf = async () =>
      ((await (await server.fetch(`/api/catalog/products/${first!.id}/plans`, { token: me.token })).json()) as { data: Array<{ tax_behavior: string }> }).data;
    expect((await plansOf())[0]!.tax_behavior).toBe('unspecified');
    expect(productResults(await importProducts(server, me.organizationId, file('unspecified')))[0]).toMatchObject({ changed: false, version_number: 1 });
    expect(productResults(await importProducts(server, me.organizationId, file('inclusive')))[0]).toMatchObject({ changed: true, version_number: 2 });
    expect((await plansOf())[0]!.tax_behavior).toBe('inclusive');
    const refused = await importProducts(server, me.organizationId, file('gross')).catch((e: unknown) => e);
    expect((refused as ImportValidationError).issues.map((i) => i.path)).toEqual(['products[0].plans[0].tax_behavior']);
  });

  it('keeps plan route keys stable across re-imports', async () => {
    const file = { families, products: [product('gamma', { plans: [plan('monthly'), plan('weekly', { renew_interval: 'P1W' })] })] };
    const [gamma] = productResults(await importProducts(server, me.organizationId, file));
    const plansOf = async () =>
      ((await (await server.fetch(`/api/catalog/products/${gamma!.id}/plans`, { token: me.token })).json()) as { data: Array<{ id: string; name: string }> })
        .data;
    const before = await plansOf();
    await importProducts(server, me.organizationId, { families, products: [product('gamma', { plans: [plan('weekly', { renew_interval: 'P1W' })] })] });
    const after = await plansOf();
    expect(after).toEqual([before.find((p) => p.name === 'weekly')]);
  });
});
