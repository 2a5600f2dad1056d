import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, DomainError } from '../../../platform/domain/index.ts';
import type { GrantSource } from '../../benefits/domain/benefitTypes.ts';

// What this module reads of benefits' events (a domain may use another's domain directly).
export {
  benefitGrantStream,
  type BenefitGrantEvent,
  type BenefitGrantedData,
  type LicenseKeyBenefitProperties,
} from '../../benefits/domain/benefitTypes.ts';

/**
 * One license key per license_key grant, on stream `license_key-<lk_id>`. The key itself is
 * never in an event in plain: `sealed_key` (AES-GCM, platform's secret box) for showing it to its
 * buyer, `key_hash` (SHA-256 of its normalized form) for finding it from what an app sends.
 *
 * Two reasons can disable a key and each is lifted on its own: the seller's (disable/enable
 * routes) and the grant's (revoked, granted again). A key is usable only when neither holds.
 */
export const licenseKeyStream = (id: string) => `license_key-${id}`;
/** Claims a key's hash for its id, so the public API finds the key without a read model. */
export const licenseKeyHashStream = (keyHash: string) => `license_key_hash-${keyHash}`;

export type LicenseStatus = 'inactive' | 'active' | 'expired' | 'disabled';

export type Activation = { id: string; name: string; created_at: number };

export type LicenseKeyIssuedData = {
  id: string;
  organization_id: string;
  mode: 'test' | 'live';
  grant_id: string;
  benefit_id: string;
  product_id: string;
  customer_id: string;
  source: GrantSource;
  key_hash: string;
  sealed_key: string;
  /** The prefix and the last group, for lists (`APP-…-7K2Q`). */
  display_key: string;
  activation_limit: number | null;
  expires_at: number | null;
  issued_at: number;
};

export type LicenseKeyEvent =
  | DomainEvent<'LicenseKeyIssued', LicenseKeyIssuedData>
  | DomainEvent<'LicenseKeyRevoked', { id: string; grant_id: string; revoked_at: number }>
  | DomainEvent<'LicenseKeyRegranted', { id: string; grant_id: string; activation_limit: number | null; expires_at: number | null; granted_at: number }>
  | DomainEvent<'LicenseKeyDisabled', { id: string; disabled_at: number }>
  | DomainEvent<'LicenseKeyEnabled', { id: string; enabled_at: number }>
  | DomainEvent<'LicenseKeyActivated', { id: string; instance: Activation }>
  | DomainEvent<'LicenseKeyDeactivated', { id: string; instance_id: string; deactivated_at: number }>;

export type LicenseKeyState =
  | { status: 'none' }
  | {
      status: 'issued';
      key: LicenseKeyIssuedData;
      activation_limit: number | null;
      expires_at: number | null;
      revoked: boolean;
      disabled_by_seller: boolean;
      activations: Activation[];
    };

export type IssueCommand = {
  type: 'Issue';
  /** What the grant and its benefit say; `key_hash`, `sealed_key`, `display_key` freshly made. */
  data: LicenseKeyIssuedData;
};

export type LicenseKeyCommand =
  | IssueCommand
  | { type: 'Revoke'; grant_id: string; at: number }
  | { type: 'Disable'; at: number }
  | { type: 'Enable'; at: number }
  | { type: 'Activate'; instance: Activation; at: number }
  | { type: 'Deactivate'; instance_id: string; at: number };

/** The status an answer shows at `now` (unix seconds). */
export function statusAt(state: Extract<LicenseKeyState, { status: 'issued' }>, now: number): LicenseStatus {
  if (state.revoked || state.disabled_by_seller) return 'disabled';
  if (state.expires_at !== null && now >= state.expires_at) return 'expired';
  return state.activations.length > 0 ? 'active' : 'inactive';
}

const refusal = (code: string, message: string) => new DomainError('invalid', code, message);

export const licenseKeyDecider: Decider<LicenseKeyState, LicenseKeyCommand, LicenseKeyEvent> = {
  initialState: () => ({ status: 'none' }),

  evolve(state, event) {
    if (event.type === 'LicenseKeyIssued') {
      const d = event.data;
      return { status: 'issued', key: d, activation_limit: d.activation_limit, expires_at: d.expires_at, revoked: false, disabled_by_seller: false, activations: [] };
    }
    if (state.status !== 'issued') return state;
    switch (event.type) {
      case 'LicenseKeyRevoked':
        return { ...state, revoked: true };
      case 'LicenseKeyRegranted':
        return { ...state, revoked: false, activation_limit: event.data.activation_limit, expires_at: event.data.expires_at };
      case 'LicenseKeyDisabled':
        return { ...state, disabled_by_seller: true };
      case 'LicenseKeyEnabled':
        return { ...state, disabled_by_seller: false };
      case 'LicenseKeyActivated':
        return { ...state, activations: [...state.activations, event.data.instance] };
      case 'LicenseKeyDeactivated':
        return { ...state, activations: state.activations.filter((a) => a.id !== event.data.instance_id) };
      default:
        return state;
    }
  },

  decide(command, state) {
    if (command.type === 'Issue') {
      const d = command.data;
      if (state.status === 'none') return [{ type: 'LicenseKeyIssued', data: d }];
      // Granted again (a subscription entitled again): the same key comes back, with the limit and expiry of this grant.
      if (!state.revoked) return [];
      return [{ type: 'LicenseKeyRegranted', data: { id: state.key.id, grant_id: d.grant_id, activation_limit: d.activation_limit, expires_at: d.expires_at, granted_at: d.issued_at } }];
    }
    if (state.status === 'none') throw new DomainError('not_found', 'not_found', 'License key not found.');
    const id = state.key.id;
    switch (command.type) {
      case 'Revoke':
        return state.revoked ? [] : [{ type: 'LicenseKeyRevoked', data: { id, grant_id: command.grant_id, revoked_at: command.at } }];
      case 'Disable':
        return state.disabled_by_seller ? [] : [{ type: 'LicenseKeyDisabled', data: { id, disabled_at: command.at } }];
      case 'Enable':
        if (state.revoked) throw conflict('grant_revoked', 'The grant of this license key is revoked; the key is enabled again when its benefit is granted again.');
        return state.disabled_by_seller ? [{ type: 'LicenseKeyEnabled', data: { id, enabled_at: command.at } }] : [];
      case 'Activate': {
        const status = statusAt(state, command.at);
        if (status === 'disabled') throw refusal('license_key_disabled', 'This license key is disabled.');
        if (status === 'expired') throw refusal('license_key_expired', 'This license key has expired.');
        if (state.activation_limit !== null && state.activations.length >= state.activation_limit) {
          throw refusal('activation_limit_reached', 'This license key has reached its activation limit.');
        }
        return [{ type: 'LicenseKeyActivated', data: { id, instance: command.instance } }];
      }
      case 'Deactivate':
        if (!state.activations.some((a) => a.id === command.instance_id)) throw new DomainError('not_found', 'instance_not_found', 'License key instance not found.');
        return [{ type: 'LicenseKeyDeactivated', data: { id, instance_id: command.instance_id, deactivated_at: command.at } }];
      default:
        return [];
    }
  },
};
