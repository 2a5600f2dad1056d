import type { RecordedEvent } from '../../platform/eventStore/index.ts';
import type { Projection, ProjectionTx } from '../../platform/es/index.ts';
import type { Activation, LicenseKeyEvent, LicenseKeyIssuedData } from './domain/licenseKey.ts';

export const LICENSE_KEYS = 'license_keys';

/** Far past any expiry: what `expires_sort` holds for a key that never expires, so one range filters by expiry. */
export const NEVER = 253_402_300_799;

export type LicenseKeyDoc = Omit<LicenseKeyIssuedData, 'issued_at'> & {
  revoked: boolean;
  disabled_by_seller: boolean;
  /** Either of the two: the `disabled` status, whatever the time. */
  disabled: boolean;
  expires_sort: number;
  activations: Activation[];
  activation_usage: number;
  created: number;
  updated: number;
};

async function apply(event: LicenseKeyEvent, recorded: RecordedEvent, tx: ProjectionTx): Promise<void> {
  if (event.type === 'LicenseKeyIssued') {
    const { issued_at, ...d } = event.data;
    const doc: LicenseKeyDoc = {
      ...d,
      revoked: false,
      disabled_by_seller: false,
      disabled: false,
      expires_sort: d.expires_at ?? NEVER,
      activations: [],
      activation_usage: 0,
      created: issued_at,
      updated: issued_at,
    };
    tx.upsert(LICENSE_KEYS, doc);
    return;
  }
  const doc = await tx.get<LicenseKeyDoc>(LICENSE_KEYS, event.data.id);
  if (!doc) return;
  const at = recorded.metadata.occurred_at;
  const put = (next: LicenseKeyDoc) =>
    tx.upsert(LICENSE_KEYS, { ...next, disabled: next.revoked || next.disabled_by_seller, activation_usage: next.activations.length, expires_sort: next.expires_at ?? NEVER, updated: at });
  switch (event.type) {
    case 'LicenseKeyRevoked':
      return put({ ...doc, revoked: true });
    case 'LicenseKeyRegranted':
      return put({ ...doc, revoked: false, activation_limit: event.data.activation_limit, expires_at: event.data.expires_at });
    case 'LicenseKeyDisabled':
      return put({ ...doc, disabled_by_seller: true });
    case 'LicenseKeyEnabled':
      return put({ ...doc, disabled_by_seller: false });
    case 'LicenseKeyActivated':
      return put({ ...doc, activations: [...doc.activations, event.data.instance] });
    case 'LicenseKeyDeactivated':
      return put({ ...doc, activations: doc.activations.filter((a) => a.id !== event.data.instance_id) });
    default:
      return;
  }
}

/** License keys of every organization, with their activations (the seller's list and the buyer's pages read it). */
export const licenseKeyProjection: Projection = {
  name: 'license_keys',
  collections: [LICENSE_KEYS],
  indexes: [
    { collection: LICENSE_KEYS, fields: ['organization_id', 'created'] },
    { collection: LICENSE_KEYS, fields: ['organization_id', 'benefit_id', 'created'] },
    { collection: LICENSE_KEYS, fields: ['organization_id', 'customer_id', 'created'] },
  ],
  eventTypes: ['LicenseKeyIssued', 'LicenseKeyRevoked', 'LicenseKeyRegranted', 'LicenseKeyDisabled', 'LicenseKeyEnabled', 'LicenseKeyActivated', 'LicenseKeyDeactivated'],
  apply: (recorded, tx) => apply(recorded as unknown as LicenseKeyEvent, recorded, tx),
};
