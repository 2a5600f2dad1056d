import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, invalid, notFound } from '../../../platform/domain/index.ts';
import { planIntervalProblems } from './planIntervals.ts';

/**
 * The catalog product aggregate, with its plans. One stream per product: `product-<uuid>`.
 * Every command that changes something moves `version_number` up by exactly one, however many
 * events it records (an import that renames the product and adds a plan is one new version), so
 * every event carries the version it belongs to.
 *
 * Ids arrive in the command: the product's UUID, the integer ids allocated for the product and
 * new plans, and the route keys (Sqids) computed from them.
 */

export type Family = { id: string; name: string; lookup_key: string };

/** A feature of the product as the catalog shows it: `value` is a flag, a count or a label. */
export type Feature = { id: string; name: string; description: string | null; value: string | number | boolean | null };

/** A linked record of the same product in another system (a payment provider, an ERP). */
export type Twin = { provider: string; external_id: string };

/** A charge of a plan: a flat amount in minor units of `currency_code`, billed each invoice interval. */
export type Charge = { id: string; type: 'flat'; amount: number; currency_code: string };

export type Plan = {
  /** Route key (Sqid of `number`). */
  id: string;
  number: number;
  /** Unique within its product: imports and offers find a plan by its name. */
  name: string;
  display_name: string;
  description: string;
  status: 'active';
  type: 'recurring' | 'one_time';
  /** ISO 8601 duration, or null for a plan that does not renew. */
  renew_interval: string | null;
  billing_anchor: 'anniversary';
  /** ISO 8601 duration. */
  invoice_interval: string;
  currency_code: string;
  currency_symbol: string;
  charges: Charge[];
  /**
   * Whether the plan's prices include tax (Stripe's Price.tax_behavior); absent: `unspecified`,
   * the tax settings' default. Only set when not `unspecified`, so older plans read unchanged.
   */
  tax_behavior?: 'inclusive' | 'exclusive';
};

/** What an integration describes of a product; everything else is lifecycle. */
export type ProductDetails = {
  name: string | null;
  display_name: string | null;
  description: string | null;
  family: Family | null;
  features: Feature[];
  twins: Twin[];
};

/** A plan as a command describes it: without the ids, which the catalog allocates. */
export type PlanInput = Omit<Plan, 'id' | 'number'>;

export type ProductEvent =
  | DomainEvent<
      'ProductCreated',
      ProductDetails & {
        product_id: string;
        number: number;
        route_key: string;
        organization_id: string;
        /** The integration's key: unique within the organization, re-imports find the product by it. */
        key: string;
        status: 'active';
        version_number: 1;
        created_at: number;
      }
    >
  | DomainEvent<'ProductDetailsChanged', ProductDetails & { version_number: number; updated_at: number }>
  | DomainEvent<'ProductPlanAdded', { plan: Plan; version_number: number; updated_at: number }>
  | DomainEvent<'ProductPlanChanged', { plan: Plan; version_number: number; updated_at: number }>
  | DomainEvent<'ProductPlanRemoved', { plan_id: string; name: string; version_number: number; updated_at: number }>
  | DomainEvent<'ProductPublished', { published_at: number; version_number: number }>
  | DomainEvent<'ProductUnpublished', { version_number: number; updated_at: number }>
  | DomainEvent<'ProductArchived', { archived_at: number; version_number: number }>
  | DomainEvent<'ProductRestored', { version_number: number; updated_at: number }>;

export const productEventTypes = [
  'ProductCreated',
  'ProductDetailsChanged',
  'ProductPlanAdded',
  'ProductPlanChanged',
  'ProductPlanRemoved',
  'ProductPublished',
  'ProductUnpublished',
  'ProductArchived',
  'ProductRestored',
] as const satisfies ReadonlyArray<ProductEvent['type']>;

/** The state an import (or a dashboard) asks for: the catalog records only the differences. */
export type DesiredProduct = {
  details: ProductDetails;
  plans: PlanInput[];
  status: 'active' | 'archived';
  published: boolean;
};

export type ProductCommand =
  | (DesiredProduct & {
      type: 'CreateProduct';
      productId: string;
      number: number;
      routeKey: string;
      organizationId: string;
      key: string;
      /** Ids for the plans, by plan name. */
      planIds: Record<string, { number: number; id: string }>;
      now: number;
    })
  | (DesiredProduct & {
      type: 'SyncProduct';
      /** Ids for plans the product does not have yet, by plan name. */
      planIds: Record<string, { number: number; id: string }>;
      now: number;
    })
  | { type: 'PublishProduct'; now: number }
  | { type: 'ArchiveProduct'; now: number };

export type ProductState =
  | { status: 'none' }
  | (ProductDetails & {
      status: 'active' | 'archived';
      productId: string;
      organizationId: string;
      key: string;
      routeKey: string;
      versionNumber: number;
      publishedAt: number | null;
      archivedAt: number | null;
      plans: Plan[];
    });

export const productStream = (productId: string) => `product-${productId}`;

/**
 * An integration key is claimed once per organization on its own stream (created with
 * no_stream), so two concurrent imports of one key make one product. `keyHash` is a digest of
 * organization and key, which keeps any character of a key out of the stream name.
 */
export const productKeyStream = (keyHash: string) => `product_key-${keyHash}`;
export type ProductKeyClaimedEvent = DomainEvent<'ProductKeyClaimed', { organization_id: string; key: string; product_id: string }>;

export const productDecider: Decider<ProductState, ProductCommand, ProductEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    if (event.type === 'ProductCreated') {
      const d = event.data;
      return {
        status: 'active',
        productId: d.product_id,
        organizationId: d.organization_id,
        key: d.key,
        routeKey: d.route_key,
        versionNumber: 1,
        publishedAt: null,
        archivedAt: null,
        plans: [],
        ...pickDetails(d),
      };
    }
    if (state.status === 'none') return state;
    const next = { ...state, versionNumber: event.data.version_number };
    switch (event.type) {
      case 'ProductDetailsChanged':
        return { ...next, ...pickDetails(event.data) };
      case 'ProductPlanAdded':
        return { ...next, plans: [...state.plans, event.data.plan] };
      case 'ProductPlanChanged':
        return { ...next, plans: state.plans.map((p) => (p.id === event.data.plan.id ? event.data.plan : p)) };
      case 'ProductPlanRemoved':
        return { ...next, plans: state.plans.filter((p) => p.id !== event.data.plan_id) };
      case 'ProductPublished':
        return { ...next, publishedAt: event.data.published_at };
      case 'ProductUnpublished':
        return { ...next, publishedAt: null };
      case 'ProductArchived':
        return { ...next, status: 'archived', archivedAt: event.data.archived_at };
      case 'ProductRestored':
        return { ...next, status: 'active', archivedAt: null };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'CreateProduct': {
        if (state.status !== 'none') throw conflict('product_exists', 'The product already exists.');
        assertUniquePlanNames(command.plans);
        const created: ProductEvent = {
          type: 'ProductCreated',
          data: {
            product_id: command.productId,
            number: command.number,
            route_key: command.routeKey,
            organization_id: command.organizationId,
            key: command.key,
            ...command.details,
            status: 'active',
            version_number: 1,
            created_at: command.now,
          },
        };
        // The rest of the creation is the same diff a sync makes, folded into version 1.
        const afterCreate = productDecider.evolve(state, created);
        return [created, ...syncEvents(command, afterCreate as Existing, 1, command.now, { detailsAlreadySet: true })];
      }
      case 'SyncProduct': {
        const existing = requireProduct(state);
        assertUniquePlanNames(command.plans);
        return syncEvents(command, existing, existing.versionNumber + 1, command.now, { detailsAlreadySet: false });
      }
      case 'PublishProduct': {
        const existing = requireProduct(state);
        if (existing.status === 'archived') throw conflict('product_archived', 'An archived product cannot be published.');
        if (existing.publishedAt !== null) return [];
        return { type: 'ProductPublished', data: { published_at: command.now, version_number: existing.versionNumber + 1 } };
      }
      case 'ArchiveProduct': {
        const existing = requireProduct(state);
        if (existing.status === 'archived') return [];
        return { type: 'ProductArchived', data: { archived_at: command.now, version_number: existing.versionNumber + 1 } };
      }
    }
  },
};

type Existing = Exclude<ProductState, { status: 'none' }>;

function requireProduct(state: ProductState): Existing {
  if (state.status === 'none') throw notFound('Product');
  return state;
}

function pickDetails(d: ProductDetails): ProductDetails {
  return {
    name: d.name,
    display_name: d.display_name,
    description: d.description,
    family: d.family,
    features: d.features,
    twins: d.twins,
  };
}

function assertUniquePlanNames(plans: PlanInput[]): void {
  const seen = new Set<string>();
  for (const plan of plans) {
    if (seen.has(plan.name)) throw invalid('duplicate_plan_name', `The plan name ${plan.name} is used twice.`, 'plans');
    seen.add(plan.name);
  }
}

/**
 * A recurring plan is billed by subscriptions: one that is added or changed must have intervals
 * they can bill. Plans left as they are stay, so editing a product's other parts never fails on them.
 */
function assertBillable(plan: PlanInput, index: number): void {
  const [problem] = planIntervalProblems(plan);
  if (problem) throw invalid('unbillable_interval', problem.message, `plans.${index}.${problem.field}`);
}

/** The events that take `state` to the desired product, all stamped with one version number. */
function syncEvents(
  desired: DesiredProduct & { planIds: Record<string, { number: number; id: string }> },
  state: Existing,
  version: number,
  now: number,
  { detailsAlreadySet }: { detailsAlreadySet: boolean },
): ProductEvent[] {
  const events: ProductEvent[] = [];
  if (!detailsAlreadySet && !sameJson(pickDetails(state), pickDetails(desired.details))) {
    events.push({ type: 'ProductDetailsChanged', data: { ...pickDetails(desired.details), version_number: version, updated_at: now } });
  }
  const current = new Map(state.plans.map((p) => [p.name, p]));
  desired.plans.forEach((input, i) => {
    const existing = current.get(input.name);
    if (existing) {
      const plan: Plan = { ...input, id: existing.id, number: existing.number };
      if (!sameJson(plan, existing)) {
        assertBillable(input, i);
        events.push({ type: 'ProductPlanChanged', data: { plan, version_number: version, updated_at: now } });
      }
      return;
    }
    assertBillable(input, i);
    const ids = desired.planIds[input.name];
    if (!ids) throw conflict('plan_id_missing', `No id was allocated for the new plan ${input.name}.`);
    events.push({ type: 'ProductPlanAdded', data: { plan: { ...input, ...ids }, version_number: version, updated_at: now } });
  });
  const wanted = new Set(desired.plans.map((p) => p.name));
  for (const plan of state.plans) {
    if (!wanted.has(plan.name)) {
      events.push({ type: 'ProductPlanRemoved', data: { plan_id: plan.id, name: plan.name, version_number: version, updated_at: now } });
    }
  }
  // Restore before publishing, publish before archiving: each step is valid in the state the last left.
  if (desired.status === 'active' && state.status === 'archived') {
    events.push({ type: 'ProductRestored', data: { version_number: version, updated_at: now } });
  }
  if (desired.published && state.publishedAt === null) {
    events.push({ type: 'ProductPublished', data: { published_at: now, version_number: version } });
  } else if (!desired.published && state.publishedAt !== null) {
    events.push({ type: 'ProductUnpublished', data: { version_number: version, updated_at: now } });
  }
  if (desired.status === 'archived' && state.status !== 'archived') {
    events.push({ type: 'ProductArchived', data: { archived_at: now, version_number: version } });
  }
  return events;
}

/** Structural equality of JSON values, whatever the key order of the objects. */
function sameJson(a: unknown, b: unknown): boolean {
  return canonical(a) === canonical(b);
}

function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
      : v,
  );
}
