import type { EventStore, RecordedEvent } from '../../platform/eventStore/index.ts';
import { benefitGrantDecider, type BenefitGrantState } from './domain/benefitGrant.ts';
import type { BenefitGrantEvent } from './domain/benefitTypes.ts';
import type { BenefitGrantObject } from './http/benefitSchemas.ts';

/**
 * `data.object` of the `benefit.granted` and `benefit.revoked` webhooks: the grant as it stood right
 * after the event, folded from its own stream up to it.
 */
export async function benefitGrantObject(store: Pick<EventStore, 'readStream'>, event: RecordedEvent): Promise<{ object: BenefitGrantObject; organizationId: string } | null> {
  if (event.type !== 'BenefitGranted' && event.type !== 'BenefitRevoked') return null;
  let state: BenefitGrantState = benefitGrantDecider.initialState();
  for (const e of await store.readStream(event.stream)) {
    if (e.revision > event.revision) break;
    state = benefitGrantDecider.evolve(state, e as unknown as BenefitGrantEvent);
  }
  if (state.status === 'none') return null;
  const g = state.grant;
  return {
    object: {
      id: g.grant_id,
      object: 'benefit_grant',
      benefit_id: g.benefit_id,
      benefit_type: g.benefit_type,
      product_id: g.product_id,
      customer_id: g.customer_id,
      source: g.source,
      status: state.status,
      granted_at: g.granted_at,
      revoked_at: state.revoked_at,
      revoke_cause: state.revoke_cause,
    },
    organizationId: g.organization_id,
  };
}
