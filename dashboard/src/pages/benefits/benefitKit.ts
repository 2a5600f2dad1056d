/** The benefit pages' answer types (from the modules' schemas, type-only) and their words. */
import type { z } from 'zod';
import type { Paged } from '../../api.ts';
import type { BenefitGrantSchema, BenefitSchema, LicenseKeyBenefitProperties } from '../../../../modules/benefits/index.ts';
import type { FileDownloadObject, FileObject } from '../../../../modules/files/index.ts';
import type { LicenseKeySchema } from '../../../../modules/licenses/index.ts';

export type Benefit = z.infer<typeof BenefitSchema>;
export type BenefitGrant = z.infer<typeof BenefitGrantSchema>;
type RevokeCause = NonNullable<BenefitGrant['revoke_cause']>;
export type { FileObject };
export type LicenseKey = z.infer<typeof LicenseKeySchema>;

export const isFileBenefit = (b: Benefit): b is Benefit & { type: 'file'; properties: { files: string[] } } => b.type === 'file';
export const isLicenseBenefit = (b: Benefit): b is Benefit & { type: 'license_key'; properties: LicenseKeyBenefitProperties } => b.type === 'license_key';

export const BENEFIT_TYPE_WORDS: Record<Benefit['type'], string> = { file: 'Files', license_key: 'License key' };

/** "3 / 5", "3 / unlimited". */
export const activations = (usage: number, limit: number | null) => (limit === null ? `${usage} / unlimited` : `${usage} / ${limit}`);

export function licenseTerms(p: LicenseKeyBenefitProperties): string {
  return [
    p.prefix ? `Prefix ${p.prefix}` : 'No prefix',
    p.activation_limit === null ? 'Unlimited activations' : `${p.activation_limit} activation${p.activation_limit === 1 ? '' : 's'}`,
    p.expires_after_days === null ? 'Never expires' : `Expires ${p.expires_after_days} day${p.expires_after_days === 1 ? '' : 's'} after the purchase`,
    p.bound_to === 'subscription' ? 'Ends with the subscription' : 'Perpetual',
  ].join(' · ');
}

export const REVOKE_WORDS: Record<RevokeCause, string> = {
  refund: 'Refunded in full',
  'subscription.not_entitled': 'The subscription ended',
  'subscription.plan_changed': 'The subscription moved to another product',
  'benefit.deleted': 'The benefit was deleted',
};

export const SOURCE_WORDS: Record<BenefitGrant['source']['type'], string> = { checkout_session: 'Purchase', subscription: 'Subscription' };

export const sourceHref = (s: BenefitGrant['source']) => (s.type === 'checkout_session' ? `/dashboard/sales/${encodeURIComponent(s.id)}` : `/dashboard/subscriptions/${encodeURIComponent(s.id)}`);

/** GET /files/{file}/downloads: who downloaded a file, how often, when last. */
export type FileDownloads = Paged<FileDownloadObject>;
