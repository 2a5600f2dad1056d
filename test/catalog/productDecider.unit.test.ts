import { describe, expect, it } from 'vitest';
import {
  productDecider,
  type DesiredProduct,
  type Plan,
  type PlanInput,
  type ProductDetails,
  type ProductEvent,
} from '../../modules/catalog/domain/product.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const spec = deciderSpec(productDecider);

const details: ProductDetails = {
  name: 'pro',
  display_name: 'Pro',
  description: 'For teams',
  family: { id: 'fam_saas', name: 'SaaS', lookup_key: 'saas' },
  features: [{ id: 'seats', name: 'Seats', description: null, value: 10 }],
  twins: [{ provider: 'stripe', external_id: 'prod_123' }],
};

const monthlyInput: PlanInput = {
  name: 'monthly',
  display_name: 'Monthly',
  description: 'Billed monthly',
  status: 'active',
  type: 'recurring',
  renew_interval: 'P1M',
  billing_anchor: 'anniversary',
  invoice_interval: 'P1M',
  currency_code: 'EUR',
  currency_symbol: '€',
  charges: [{ id: 'chg_1', type: 'flat', amount: 1900, currency_code: 'EUR' }],
};
const monthly: Plan = { ...monthlyInput, id: 'pk1', number: 1 };

const desired = (over: Partial<DesiredProduct> = {}): DesiredProduct => ({
  details,
  plans: [monthlyInput],
  status: 'active',
  published: false,
  ...over,
});

const created: ProductEvent = {
  type: 'ProductCreated',
  data: {
    product_id: 'p-uuid',
    number: 7,
    route_key: 'rk7',
    organization_id: 'org_a',
    key: 'pro',
    ...details,
    status: 'active',
    version_number: 1,
    created_at: 100,
  },
};
const planAdded: ProductEvent = { type: 'ProductPlanAdded', data: { plan: monthly, version_number: 1, updated_at: 100 } };

const create = (over: Partial<DesiredProduct> = {}) =>
  ({
    type: 'CreateProduct',
    productId: 'p-uuid',
    number: 7,
    routeKey: 'rk7',
    organizationId: 'org_a',
    key: 'pro',
    planIds: { monthly: { id: 'pk1', number: 1 } },
    now: 100,
    ...desired(over),
  }) as const;

const sync = (over: Partial<DesiredProduct> = {}, planIds: Record<string, { id: string; number: number }> = {}) =>
  ({ type: 'SyncProduct', planIds, now: 200, ...desired(over) }) as const;

describe('product decider', () => {
  it('creates a product at version 1 with its plans', () => {
    spec.given([]).when(create()).then([created, planAdded]);
  });

  it('creates a published product in the same version', () => {
    spec
      .given([])
      .when(create({ published: true }))
      .then([created, planAdded, { type: 'ProductPublished', data: { published_at: 100, version_number: 1 } }]);
  });

  it('refuses to create a product twice', () => {
    spec.given([created]).when(create()).thenThrows('product_exists');
  });

  it('refuses two plans with one name', () => {
    spec.given([]).when(create({ plans: [monthlyInput, monthlyInput] })).thenThrows('duplicate_plan_name');
  });

  it('records nothing when a sync changes nothing', () => {
    spec.given([created, planAdded]).when(sync()).then([]);
  });

  it('records a changed description as version 2', () => {
    spec
      .given([created, planAdded])
      .when(sync({ details: { ...details, description: 'For larger teams' } }))
      .then([
        {
          type: 'ProductDetailsChanged',
          data: { ...details, description: 'For larger teams', version_number: 2, updated_at: 200 },
        },
      ]);
  });

  it('stamps every event of one sync with the same next version', () => {
    const yearlyInput: PlanInput = { ...monthlyInput, name: 'yearly', renew_interval: 'P1Y', invoice_interval: 'P1Y' };
    const events = spec
      .given([created, planAdded])
      .when(
        sync(
          { details: { ...details, display_name: 'Pro+' }, plans: [{ ...monthlyInput, description: 'Monthly' }, yearlyInput], published: true },
          { yearly: { id: 'pk2', number: 2 } },
        ),
      )
      .then([
        { type: 'ProductDetailsChanged', data: { ...details, display_name: 'Pro+', version_number: 2, updated_at: 200 } },
        { type: 'ProductPlanChanged', data: { plan: { ...monthly, description: 'Monthly' }, version_number: 2, updated_at: 200 } },
        { type: 'ProductPlanAdded', data: { plan: { ...yearlyInput, id: 'pk2', number: 2 }, version_number: 2, updated_at: 200 } },
        { type: 'ProductPublished', data: { published_at: 200, version_number: 2 } },
      ]);
    const state = [created, planAdded, ...events].reduce(productDecider.evolve, productDecider.initialState());
    expect(state).toMatchObject({ versionNumber: 2, publishedAt: 200, display_name: 'Pro+' });
  });

  it('removes a plan the sync no longer lists', () => {
    spec
      .given([created, planAdded])
      .when(sync({ plans: [] }))
      .then([{ type: 'ProductPlanRemoved', data: { plan_id: 'pk1', name: 'monthly', version_number: 2, updated_at: 200 } }]);
  });

  it('refuses a new plan without an allocated id', () => {
    spec
      .given([created, planAdded])
      .when(sync({ plans: [monthlyInput, { ...monthlyInput, name: 'weekly' }] }))
      .thenThrows('plan_id_missing');
  });

  it('archives and restores through a sync', () => {
    const archived: ProductEvent = { type: 'ProductArchived', data: { archived_at: 200, version_number: 2 } };
    spec.given([created, planAdded]).when(sync({ status: 'archived' })).then([archived]);
    spec
      .given([created, planAdded, archived])
      .when({ ...sync(), now: 300 })
      .then([{ type: 'ProductRestored', data: { version_number: 3, updated_at: 300 } }]);
  });

  it('publishes once and sets published_at', () => {
    const published: ProductEvent = { type: 'ProductPublished', data: { published_at: 150, version_number: 2 } };
    spec.given([created]).when({ type: 'PublishProduct', now: 150 }).then([published]);
    spec.given([created, published]).when({ type: 'PublishProduct', now: 160 }).then([]);
  });

  it('archives once, setting archived_at and status archived', () => {
    const archived: ProductEvent = { type: 'ProductArchived', data: { archived_at: 150, version_number: 2 } };
    spec.given([created]).when({ type: 'ArchiveProduct', now: 150 }).then([archived]);
    spec.given([created, archived]).when({ type: 'ArchiveProduct', now: 160 }).then([]);
    const state = [created, archived].reduce(productDecider.evolve, productDecider.initialState());
    expect(state).toMatchObject({ status: 'archived', archivedAt: 150, versionNumber: 2 });
  });

  it('refuses to publish an archived product', () => {
    spec
      .given([created, { type: 'ProductArchived', data: { archived_at: 150, version_number: 2 } }])
      .when({ type: 'PublishProduct', now: 160 })
      .thenThrows('product_archived');
  });

  it.each([
    ['publish', { type: 'PublishProduct', now: 1 }],
    ['archive', { type: 'ArchiveProduct', now: 1 }],
    ['sync', { type: 'SyncProduct', planIds: {}, now: 1, ...desired() }],
  ] as const)('answers not found to %s of a product that does not exist', (_name, command) => {
    spec.given([]).when(command).thenThrows('not_found');
  });
});
