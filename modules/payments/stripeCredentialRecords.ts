/**
 * Where the sealed Stripe secrets live: a record per connection, outside the event log, so the
 * log and its copies hold no secret even encrypted. The write side's Stripe account commands
 * write and delete it directly; the composition root (app/compose.ts) picks the storage (a
 * collection of the read store that no projection owns, so a rebuild never drops it).
 */
export type SealedStripeCredentials = {
  organization_id: string;
  /** Named by the StripeAccountConnected event of the connection it belongs to. */
  credentials_id: string;
  sealed_secret_key: string;
  sealed_webhook_secret: string;
};

export interface StripeCredentialRecords {
  put(record: SealedStripeCredentials): Promise<void>;
  /** The organization's record with this id; null when there is none (never another organization's). */
  get(organizationId: string, credentialsId: string): Promise<SealedStripeCredentials | null>;
  delete(organizationId: string, credentialsId: string): Promise<void>;
}
