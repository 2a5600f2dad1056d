import type { EventStore } from '../eventStore/eventStore.ts';
import type { Logger, ProjectionRunner } from '../es/projectionRunner.ts';
import type { FileStore } from '../files/fileStore.ts';
import type { ReadStore } from '../readStore/readStore.ts';
import type { PersonalDataVault } from '../privacy/personalDataVault.ts';
import type { StripeClientFactory } from '../../modules/payments/paymentProvider.ts';
import type { StripeCredentialRecords } from '../../modules/payments/stripeCredentialRecords.ts';
import type { Config } from './config.ts';
import type { Metrics } from './metrics.ts';

/** Milliseconds since the epoch. Injected so tests can move time (session expiry, promo tiers). */
export type Clock = () => number;

/** What the API, the CLI and the workers are given by the composition root. */
export type Services = {
  config: Config;
  store: EventStore;
  readStore: ReadStore;
  clock: Clock;
  /** jwt signs service_jwt tokens (and seals webhook secrets); data seals payment-provider credentials. */
  secrets: { jwt: Uint8Array; data: Uint8Array };
  /** The sealed Stripe credentials, kept outside the event log (modules/payments/stripeCredentialStore.ts). */
  stripeCredentials: StripeCredentialRecords;
  /** Payment providers that need per-organization credentials (Stripe), picked by the composition root. */
  payments: { stripe: StripeClientFactory };
  /**
   * Running projections (the API on the embedded profile), or a watcher of the projection
   * workers' checkpoints (the API and the automation worker on the production profile), so
   * waitFor gives read-your-writes either way; null in one-shot CLI runs.
   */
  projections: ProjectionRunner | null;
  /** The keys sealing buyers' personal fields in the event log (platform/privacy); an erasure destroys theirs. */
  vault: PersonalDataVault;
  /** Prometheus metrics of this process (served at /metrics): record outbound webhook results here. */
  metrics: Metrics;
  /** Uploaded files' bytes (modules/files): the data directory, or GridFS on the production profile. */
  files: FileStore;
};

/**
 * Work run beside the API or in a worker (app/backgroundJobs.ts lists them). Declared here, with
 * Services, so jobs below app/ (automation/) implement it without importing the list of jobs.
 */
export type BackgroundJob = {
  name: string;
  /** Starts the job; the returned stop() resolves once it has stopped at a safe point. */
  start(services: Services, logger: Logger): Promise<{ stop(): Promise<void> }>;
};
