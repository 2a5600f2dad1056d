import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError } from '../../app/import/importFile.ts';
import { productDecider, type PlanInput, type ProductEvent } from '../../modules/catalog/domain/product.ts';
import { fold } from '../../platform/domain/index.ts';
import { signedInPerson, type ManageClient } from '../helpers/manageClient.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';
import { families, importProducts, plan, product, productResults } from './catalogFixtures.ts';

type Refusal = { message: string; code?: string; errors: Record<string, string[]> };

describe('a recurring plan must be billable by subscriptions', () => {
  let server: TestServer;
  let owner: ManageClient;
  let organizationId: string;
  beforeAll(async () => {
    server = await startTestServer();
    const person = await signedInPerson(server);
    owner = person.client;
    organizationId = person.organizationId;
  });
  afterAll(() => server.close({ remove: true }));

  const importIssues = async (plans: Array<Record<string, unknown>>) => {
    const head = await server.services.store.headPosition();
    let error: unknown;
    try {
      await importProducts(server, organizationId, { families, products: [product('sub', { plans })] });
    } catch (e) {
      error = e;
    }
    expect(await server.services.store.headPosition()).toBe(head);
    expect(error).toBeInstanceOf(ImportValidationError);
    return (error as ImportValidationError).issues;
  };

  it('refuses at import intervals it cannot bill, naming the field, and writes nothing', async () => {
    const issues = await importIssues([
      plan('zero', { renew_interval: 'P0M' }),
      plan('mixed', { renew_interval: 'P1M', invoice_interval: 'P1M2D' }),
      plan('hourly', { renew_interval: 'PT1H' }),
      plan('long', { renew_interval: 'P4Y', invoice_interval: 'P1Y' }),
      plan('short-term', { renew_interval: 'P1M', invoice_interval: 'P1Y' }),
      plan('weeks-in-months', { renew_interval: 'P1M', invoice_interval: 'P1W' }),
      plan('uneven', { renew_interval: 'P1Y', invoice_interval: 'P5M' }),
      plan('garbage', { renew_interval: 'monthly' }),
    ]);
    const byPath = new Map(issues.map((i) => [i.path, i.message]));
    const base = 'products[0].plans';
    expect(byPath.get(`${base}[0].renew_interval`)).toContain('renew_interval "P0M" is not a billing interval');
    // Without an invoice_interval the plan is invoiced each renew_interval: told once.
    expect(byPath.has(`${base}[0].invoice_interval`)).toBe(false);
    expect(byPath.get(`${base}[1].invoice_interval`)).toContain('invoice_interval "P1M2D" is not a billing interval');
    expect(byPath.get(`${base}[2].renew_interval`)).toContain('"PT1H" is not a billing interval');
    expect(byPath.get(`${base}[3].renew_interval`)).toContain('"P4Y"');
    expect(byPath.get(`${base}[4].renew_interval`)).toContain('must be a whole number of invoice_interval P1Y periods');
    expect(byPath.get(`${base}[5].renew_interval`)).toContain('must be a whole number of invoice_interval P1W periods');
    expect(byPath.get(`${base}[6].renew_interval`)).toContain('must be a whole number');
    // Not a duration at all: its own schema says so, once.
    expect(issues.filter((i) => i.path === `${base}[7].renew_interval`)).toHaveLength(1);
    expect(issues).toHaveLength(8);
  });

  it('imports every interval the issue names, terms billed in whole invoices, and one_time plans as before', async () => {
    const plans = [
      ...['P1D', 'P1W', 'P2W', 'P1M', 'P3M', 'P6M', 'P1Y'].map((iv) => plan(`every-${iv}`, { renew_interval: iv })),
      plan('yearly-term-monthly', { renew_interval: 'P1Y', invoice_interval: 'P1M' }),
      plan('yearly-term-quarterly', { renew_interval: 'P1Y', invoice_interval: 'P3M' }),
      plan('two-weeks-weekly', { renew_interval: 'P2W', invoice_interval: 'P1W' }),
      plan('fortnight-in-days', { renew_interval: 'P14D', invoice_interval: 'P1W' }),
      plan('three-years', { renew_interval: 'P3Y', invoice_interval: 'P36M' }),
      plan('once', { type: 'one_time', renew_interval: null, invoice_interval: 'P1D' }),
    ];
    const [result] = productResults(await importProducts(server, organizationId, { families, products: [product('fine', { plans })] }));
    expect(result).toMatchObject({ created: true });
  });

  it('refuses the same through the management routes with 422 naming the field, on create and on edit', async () => {
    const body = (plans: Array<Record<string, unknown>>) => ({
      key: 'managed',
      display_name: 'Managed',
      plans: plans.map((p) => ({ name: 'm', display_name: 'M', currency_code: 'EUR', charges: [{ amount: 500 }], ...p })),
    });
    const refused = await owner.json<Refusal>('POST', '/manage/api/products', body([{ renew_interval: 'P1M', invoice_interval: 'P1Y' }]));
    expect(refused.status).toBe(422);
    expect(refused.body.errors['plans.0.renew_interval']?.[0]).toContain('must be a whole number of invoice_interval P1Y periods');

    const created = await owner.json<{ id: string }>('POST', '/manage/api/products', body([{ renew_interval: 'P1M' }]));
    expect(created.status).toBe(201);
    const { key: _key, ...edit } = body([{ renew_interval: 'P1M', invoice_interval: 'P1M2D' }]);
    const edited = await owner.json<Refusal>('PUT', `/manage/api/products/${created.body.id}`, edit);
    expect(edited.status).toBe(422);
    expect(edited.body.errors['plans.0.invoice_interval']?.[0]).toContain('"P1M2D" is not a billing interval');
  });
});

describe('the product decider refuses an unbillable plan that is added or changed', () => {
  const good: PlanInput = {
    name: 'monthly', display_name: 'Monthly', description: '', status: 'active', type: 'recurring', renew_interval: 'P1M',
    billing_anchor: 'anniversary', invoice_interval: 'P1M', currency_code: 'EUR', currency_symbol: '€', charges: [],
  };
  const details = { name: null, display_name: 'P', description: null, family: null, features: [], twins: [] };
  const create = (plans: PlanInput[]) => ({
    type: 'CreateProduct' as const, productId: 'p', number: 1, routeKey: 'rk', organizationId: 'org', key: 'k',
    planIds: Object.fromEntries(plans.map((p, i) => [p.name, { id: `pk${i}`, number: i + 1 }])),
    details, plans, status: 'active' as const, published: false, now: 1,
  });

  it('names the field of the plan in the error', () => {
    expect(() => productDecider.decide(create([good, { ...good, name: 'odd', renew_interval: 'P1Y6M', invoice_interval: 'P1M' }]), productDecider.initialState()))
      .toThrow(expect.objectContaining({ code: 'unbillable_interval', fields: { 'plans.1.renew_interval': [expect.stringContaining('"P1Y6M"')] } }));
  });

  it('leaves a plan recorded before the rule alone when the product is edited around it', () => {
    // A plan of the log with an interval the rule now refuses: editing the product's details keeps it.
    const legacy = { ...good, name: 'legacy', renew_interval: 'P1Y6M', invoice_interval: 'P1Y6M' };
    const history: ProductEvent[] = [
      ...(productDecider.decide(create([good]), productDecider.initialState()) as ProductEvent[]),
      { type: 'ProductPlanAdded', data: { plan: { ...legacy, id: 'pk9', number: 9 }, version_number: 1, updated_at: 1 } },
    ];
    const state = fold(productDecider, history);
    const sync = { type: 'SyncProduct' as const, planIds: {}, details: { ...details, display_name: 'Renamed' }, plans: [good, legacy], status: 'active' as const, published: false, now: 2 };
    expect(productDecider.decide(sync, state)).toEqual([expect.objectContaining({ type: 'ProductDetailsChanged' })]);
    expect(() => productDecider.decide({ ...sync, plans: [good, { ...legacy, display_name: 'Changed' }] }, state)).toThrow(/"P1Y6M" is not a billing interval/);
  });
});
