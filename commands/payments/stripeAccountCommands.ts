import { describeSecretKey, stripeAccountDecider, stripeAccountStream, type StripeAccountState } from '../../domain/payments/stripeAccount.ts';
import { fold } from '../../domain/shared/decider.ts';
import { DomainError, invalid, notFound } from '../../domain/shared/domainError.ts';
import type { EventStore } from '../../eventStore/eventStore.ts';
import { handleCommand, type CommandContext } from '../handleCommand.ts';
import { organizationExists } from '../identity/identityCommands.ts';
import { secretBox, type SecretBox } from '../webhooks/secretBox.ts';

/** Its own HKDF purpose: a sealed Stripe key cannot be opened as anything else, nor the reverse. */
export const stripeSecretBox = (dataKey: Uint8Array): SecretBox => secretBox(dataKey, 'commerce stripe credentials');

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

/** Checks the three values, seals the two secrets and records the connection. */
export async function connectStripe(ctx: CommandContext, box: SecretBox, input: ConnectStripeInput): Promise<StripeAccountSummary> {
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
  const result = await handleCommand(ctx, stripeAccountStream(input.organizationId), stripeAccountDecider, {
    type: 'Connect',
    account: {
      organization_id: input.organizationId,
      key_type: key.type,
      key_mode: key.mode,
      key_last4: key.last4,
      publishable_key: input.publishableKey,
      sealed_secret_key: box.seal(input.secretKey),
      sealed_webhook_secret: box.seal(input.webhookSecret),
    },
    now: ctx.metadata.occurred_at,
  });
  return summarize(result.state);
}

export async function disconnectStripe(ctx: CommandContext, organizationId: string): Promise<StripeAccountSummary> {
  const result = await handleCommand(ctx, stripeAccountStream(organizationId), stripeAccountDecider, {
    type: 'Disconnect',
    organizationId,
    now: ctx.metadata.occurred_at,
  });
  return summarize(result.state);
}

/** The organization's opened credentials, for a call to Stripe; null when none is connected. */
export async function stripeCredentials(store: EventStore, box: SecretBox, organizationId: string): Promise<StripeCredentials | null> {
  const state = await loadStripeAccount(store, organizationId);
  if (state.status !== 'connected') return null;
  const a = state.account;
  try {
    return { secretKey: box.open(a.sealed_secret_key), webhookSecret: box.open(a.sealed_webhook_secret), publishableKey: a.publishable_key, mode: a.key_mode };
  } catch {
    // Sealed under another key: DATA_ENCRYPTION_KEY changed, or the log was copied to another data directory.
    throw new DomainError(
      'conflict',
      'stripe_credentials_unreadable',
      "The organization's Stripe credentials cannot be decrypted with this service's DATA_ENCRYPTION_KEY; an owner must connect the Stripe account again.",
    );
  }
}
