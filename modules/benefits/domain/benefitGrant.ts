import type { Decider } from '../../../platform/domain/index.ts';
import type { BenefitGrantedData, BenefitGrantEvent, RevokeCause } from './benefitTypes.ts';

export type BenefitGrantState =
  | { status: 'none' }
  | { status: 'granted' | 'revoked'; grant: BenefitGrantedData; revoked_at: number | null; revoke_cause: RevokeCause | null };

export type BenefitGrantCommand =
  /**
   * Grants unless granted. `regrant`: whether a revoked grant may be granted again (a
   * subscription entitled again); a one-payment purchase's grant, once revoked, stays revoked.
   */
  | { type: 'Grant'; grant: BenefitGrantedData; regrant: boolean }
  | { type: 'Revoke'; cause: RevokeCause; now: number };

/**
 * One grant of one benefit to one customer, on `benefit_grant-<grant_id>`. Both commands are
 * idempotent, so the subscriber may run them again after a crash and append nothing new.
 */
export const benefitGrantDecider: Decider<BenefitGrantState, BenefitGrantCommand, BenefitGrantEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'BenefitGranted':
        return { status: 'granted', grant: event.data, revoked_at: null, revoke_cause: null };
      case 'BenefitRevoked':
        if (state.status === 'none') return state;
        return { ...state, status: 'revoked', revoked_at: event.data.revoked_at, revoke_cause: event.data.cause };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Grant':
        if (state.status === 'granted') return [];
        if (state.status === 'revoked' && (!command.regrant || state.revoke_cause === 'benefit.deleted')) return [];
        return { type: 'BenefitGranted', data: command.grant };
      case 'Revoke':
        if (state.status !== 'granted') return [];
        return { type: 'BenefitRevoked', data: { grant_id: state.grant.grant_id, cause: command.cause, revoked_at: command.now } };
    }
  },
};
