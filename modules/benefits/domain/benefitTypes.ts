import type { DomainEvent } from '../../../platform/domain/index.ts';

/**
 * The vocabulary of benefits, shared by the modules that grant, deliver and show them (Polar's
 * words: a product's benefit is granted to a customer and revoked from them).
 *
 * A product's benefits live on one stream per product, `product_benefits-<product_id>`, so the
 * grant subscriber decides on the stream, never on a read model. Each grant is one stream,
 * `benefit_grant-<grant_id>`, whose id is derived from the benefit and what granted it, so a
 * subscriber that runs again after a crash appends to the same stream and finds it done.
 */
export type BenefitType = 'file' | 'license_key';

/** A file benefit delivers these files (`file_…`, modules/files), in this order. */
export type FileBenefitProperties = { files: string[] };

/**
 * A license key benefit: one key per grant. `prefix`: shown before the key's groups (absent:
 * none). `activation_limit`: instances at once (null: unlimited). `expires_after_days`: from the
 * grant (null: never). `bound_to`: `subscription` keys are disabled when the subscription stops
 * being entitled; `perpetual` keys stay with the buyer (a refund still revokes both).
 */
export type LicenseKeyBenefitProperties = {
  prefix: string | null;
  activation_limit: number | null;
  expires_after_days: number | null;
  bound_to: 'subscription' | 'perpetual';
};

export type BenefitProperties = FileBenefitProperties | LicenseKeyBenefitProperties;

export type BenefitData = {
  id: string;
  organization_id: string;
  product_id: string;
  type: BenefitType;
  description: string;
  properties: BenefitProperties;
  created_at: number;
};

export type ProductBenefitsEvent =
  | DomainEvent<'BenefitCreated', BenefitData>
  | DomainEvent<'BenefitUpdated', { id: string; description: string; properties: BenefitProperties; updated_at: number }>
  | DomainEvent<'BenefitDeleted', { id: string; deleted_at: number }>;

/** What granted a benefit: a one-payment checkout, or a subscription while it is entitled. */
export type GrantSource = { type: 'checkout_session' | 'subscription'; id: string };

/**
 * `subscription.plan_changed`: the subscription moved to this benefit's product while entitled.
 * `benefit.created`: the benefit was added to a product the buyer had bought, or subscribes to.
 */
export type GrantCause = 'checkout.completed' | 'subscription.entitled' | 'subscription.plan_changed' | 'benefit.created';
/** `subscription.plan_changed`: the subscription moved to another product; its benefits replace these. */
export type RevokeCause = 'refund' | 'subscription.not_entitled' | 'subscription.plan_changed' | 'benefit.deleted';

export type BenefitGrantedData = {
  grant_id: string;
  organization_id: string;
  mode: 'test' | 'live';
  benefit_id: string;
  benefit_type: BenefitType;
  product_id: string;
  customer_id: string;
  source: GrantSource;
  cause: GrantCause;
  /** The paid invoice that granted it (a subscription's re-grant: the invoice that made it entitled again; null if none). */
  invoice_id: string | null;
  granted_at: number;
};

export type BenefitGrantEvent =
  | DomainEvent<'BenefitGranted', BenefitGrantedData>
  | DomainEvent<'BenefitRevoked', { grant_id: string; cause: RevokeCause; revoked_at: number }>;

/** The read model of grants (modules/benefits' projection), which buyer pages and downloads read. */
export const BENEFIT_GRANTS = 'benefit_grants';

export type BenefitGrantDoc = Omit<BenefitGrantedData, 'grant_id' | 'cause' | 'invoice_id'> & {
  id: string;
  status: 'granted' | 'revoked';
  revoked_at: number | null;
  revoke_cause: RevokeCause | null;
};

export const productBenefitsStream = (productId: string) => `product_benefits-${productId}`;
export const benefitGrantStream = (grantId: string) => `benefit_grant-${grantId}`;
/** The claim of a benefit id: its one event names the organization and product it belongs to. */
export const benefitClaimStream = (benefitId: string) => `benefit-${benefitId}`;
export type BenefitRegisteredEvent = DomainEvent<'BenefitRegistered', { organization_id: string; product_id: string }>;
/**
 * The grants made of one benefit, so its deletion revokes them all from the log: the subscriber
 * records a grant's id here before it appends the grant.
 */
export const benefitGrantLedgerStream = (benefitId: string) => `benefit_grant_ledger-${benefitId}`;
export type BenefitGrantRecordedEvent = DomainEvent<'BenefitGrantRecorded', { grant_id: string }>;
