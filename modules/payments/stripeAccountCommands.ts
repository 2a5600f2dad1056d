import { randomBytes } from 'node:crypto';
import { describeSecretKey, stripeAccountDecider, stripeAccountStream, type StripeAccountState } from './domain/stripeAccount.ts';
import { fold, DomainError, invalid, notFound } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { organizationExists } from '../identity/index.ts';
import { secretBox, type SecretBox } from '../../platform/lib/index.ts';
import type { StripeCredentialRecords } from './stripeCredentialRecords.ts';

/** Its own HKDF purpose: a sealed Stripe key cannot be opened as anything else, nor the reverse. */
export const stripeSecretBox = (dataKey: Uint8Array): SecretBox => secretBox(dataKey, 'commerce stripe credentials');

/** What seals the secrets and where the sealed records are kept. */
export type StripeSecrets = { box: SecretBox; records: StripeCredentialRecords };

/** From the service's parts; the box is made on use, so a deployment that never connects Stripe generates no data key. */
export const stripeSecrets = (services: { secrets: { data: Uint8Array }; stripeCredentials: StripeCredentialRecords }): StripeSecrets => ({
  get box() {
    return stripeSecretBox(services.secrets.data);
  },
  records: services.stripeCredentials,
});

/** What anyone may see of a connection: never a secret, only the key's kind, mode and last four. */
export type StripeAccountSummary =
  | { connected: false }
  | { connected: true; key_type: 'secret' | 'restricted'; mode: 'test' | 'live'; secret_key: string; publishable_key: string; connected_at: number };

export type StripeCredentials = { secretKey: string; webhookSecret: string; publishableKey: string; mode: 'test' | 'live' };

export type ConnectStripeInput = { organizationId: string; secretKey: string; publishableKey: string; webhookSecret: string };

export async function loadStripeAccount(store: EventStore, organizationId: string): Promise<StripeAccountState> {
  return fold(stripeAccountDecider, (await store.readStream(stripeAccountStream(organizationId))) as never);
}

export function summarize(state: StripeAccountState): StripeAccountSummary {
  if (state.status !== 'connected') return { connected: false };
  const a = state.account;
  return {
    connected: true,
    key_type: a.key_type,
    mode: a.key_mode,
    // Masked as Stripe's dashboard shows a key: its prefix and last four.
    secret_key: `${a.key_type === 'secret' ? 'sk' : 'rk'}_${a.key_mode}_••••${a.key_last4}`,
    publishable_key: a.publishable_key,
    connected_at: a.connected_at,
  };
}

/**
 * Deletes the records named by the stream's connections before revision `upTo` (ours): only
 * those, so of two reconnects at once neither deletes the record the other's (later) event names.
 */
async function deleteReplaced(ctx: CommandContext, records: StripeCredentialRecords, organizationId: string, upTo: number): Promise<void> {
  const events = await ctx.store.readStream(stripeAccountStream(organizationId));
  for (const e of events) {
    const id = e.revision < upTo && e.type === 'StripeAccountConnected' ? (e.data as { credentials_id?: string }).credentials_id : undefined;
    if (id !== undefined) await records.delete(organizationId, id);
  }
}

/**
 * Checks the three values, seals the two secrets into a new credentials record, then records the
 * connection naming it, then deletes the records earlier connections named. A failure in between
 * leaves an orphan record no event names, never a connection without its record.
 */
export async function connectStripe(ctx: CommandContext, secrets: StripeSecrets, input: ConnectStripeInput): Promise<StripeAccountSummary> {
  if (!(await organizationExists(ctx, input.organizationId))) throw notFound('Organization');
  const key = describeSecretKey(input.secretKey);
  if (!key) throw invalid('invalid_secret_key', 'The secret key must be a Stripe secret or restricted key (sk_test_…, sk_live_…, rk_test_…, rk_live_…).', 'secret_key');
  const publishable = /^pk_(test|live)_[A-Za-z0-9]{8,}$/.exec(input.publishableKey);
  if (!publishable) throw invalid('invalid_publishable_key', 'The publishable key must be a Stripe publishable key (pk_test_… or pk_live_…).', 'publishable_key');
  if (publishable[1] !== key.mode) {
    throw invalid('stripe_key_mode_mismatch', `The publishable key is a ${publishable[1]} key but the secret key is a ${key.mode} key; take both from the same mode.`, 'publishable_key');
  }
  if (!/^whsec_[A-Za-z0-9+/=]{8,}$/.test(input.webhookSecret)) {
    throw invalid('invalid_webhook_secret', "The webhook secret must be the endpoint's signing secret (whsec_…).", 'webhook_secret');
  }
  const credentialsId = `scr_${randomBytes(12).toString('hex')}`;
  const { box } = secrets;
  await secrets.records.put({
    organization_id: input.organizationId,
    credentials_id: credentialsId,
    sealed_secret_key: box.seal(input.secretKey),
    sealed_webhook_secret: box.seal(input.webhookSecret),
  });
  const result = await handleCommand(ctx, stripeAccountStream(input.organizationId), stripeAccountDecider, {
    type: 'Connect',
    account: {
      organization_id: input.organizationId,
      key_type: key.type,
      key_mode: key.mode,
      key_last4: key.last4,
      publishable_key: input.publishableKey,
      credentials_id: credentialsId,
    },
    now: ctx.metadata.occurred_at,
  });
  await deleteReplaced(ctx, secrets.records, input.organizationId, result.revision);
  return summarize(result.state);
}

/** Records the disconnection, then deletes the organization's sealed credentials. */
export async function disconnectStripe(ctx: CommandContext, records: StripeCredentialRecords, organizationId: string): Promise<StripeAccountSummary> {
  const result = await handleCommand(ctx, stripeAccountStream(organizationId), stripeAccountDecider, {
    type: 'Disconnect',
    organizationId,
    now: ctx.metadata.occurred_at,
  });
  await deleteReplaced(ctx, records, organizationId, result.revision);
  return summarize(result.state);
}

const unreadable = () =>
  new DomainError(
    'conflict',
    'stripe_credentials_unreadable',
    "The organization's Stripe credentials cannot be read here (decrypted with this service's DATA_ENCRYPTION_KEY, or found in this read store); an owner must connect the Stripe account again.",
  );

/**
 * The organization's opened credentials, for a call to Stripe; null when none is connected. The
 * sealed secrets come from the credentials record the connection's event names. Legacy path: a
 * connection recorded before credentials records existed has no credentials_id and carries its
 * sealed secrets in the event itself, read from there (an upcast on read; nothing is rewritten).
 */
export async function stripeCredentials(store: EventStore, secrets: StripeSecrets, organizationId: string): Promise<StripeCredentials | null> {
  const state = await loadStripeAccount(store, organizationId);
  if (state.status !== 'connected') return null;
  const a = state.account;
  let sealed: { sealed_secret_key: string; sealed_webhook_secret: string } | null;
  if (a.credentials_id !== undefined) {
    // Missing when the event log was copied without the read store (`events copy`), or the read store lost.
    sealed = await secrets.records.get(organizationId, a.credentials_id);
  } else {
    sealed = a.sealed_secret_key !== undefined && a.sealed_webhook_secret !== undefined ? { sealed_secret_key: a.sealed_secret_key, sealed_webhook_secret: a.sealed_webhook_secret } : null;
  }
  if (!sealed) throw unreadable();
  try {
    return { secretKey: secrets.box.open(sealed.sealed_secret_key), webhookSecret: secrets.box.open(sealed.sealed_webhook_secret), publishableKey: a.publishable_key, mode: a.key_mode };
  } catch {
    // Sealed under another key: DATA_ENCRYPTION_KEY changed, or the data was copied to another data directory.
    throw unreadable();
  }
}
