import { type Decider, type DomainEvent, notFound } from '../../../platform/domain/index.ts';

/** `sk_test_…`/`rk_test_…` keys reach Stripe's test mode; `_live_` ones take real money. */
export type StripeKeyMode = 'test' | 'live';
export type StripeKeyType = 'secret' | 'restricted';

/**
 * An organization's connected Stripe account. The event carries no secret, not even sealed: the
 * secret key and the webhook signing secret are kept sealed (AES-256-GCM by the write side,
 * platform/lib/secretBox.ts) in a credentials record outside the log, and `credentials_id`
 * names the record that goes with this connection. Everything a reader may see is the key's type,
 * mode and last four characters.
 *
 * Legacy: logs written before the record existed carry `sealed_secret_key` and
 * `sealed_webhook_secret` in the event and no `credentials_id`; such a connection is still read
 * from the event (see stripeCredentials in modules/payments/stripeAccountCommands.ts).
 */
export type StripeAccountEvent =
  | DomainEvent<
      'StripeAccountConnected',
      {
        organization_id: string;
        key_type: StripeKeyType;
        key_mode: StripeKeyMode;
        key_last4: string;
        publishable_key: string;
        /** The credentials record holding this connection's sealed secrets; absent in legacy events. */
        credentials_id?: string;
        /** Legacy only (events written before credentials records): never written now. */
        sealed_secret_key?: string;
        /** Legacy only, as sealed_secret_key. */
        sealed_webhook_secret?: string;
        connected_at: number;
      }
    >
  | DomainEvent<'StripeAccountDisconnected', { organization_id: string; disconnected_at: number }>;

type Connected = Extract<StripeAccountEvent, { type: 'StripeAccountConnected' }>['data'];

export type StripeAccountCommand =
  | { type: 'Connect'; account: Omit<Connected, 'connected_at' | 'sealed_secret_key' | 'sealed_webhook_secret'> & { credentials_id: string }; now: number }
  | { type: 'Disconnect'; organizationId: string; now: number };

export type StripeAccountState = { status: 'none' } | { status: 'connected'; account: Connected } | { status: 'disconnected' };

export const stripeAccountStream = (organizationId: string) => `stripe_account-${organizationId}`;

export const stripeAccountDecider: Decider<StripeAccountState, StripeAccountCommand, StripeAccountEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(_state, event) {
    switch (event.type) {
      case 'StripeAccountConnected':
        return { status: 'connected', account: event.data };
      case 'StripeAccountDisconnected':
        return { status: 'disconnected' };
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'Connect':
        // A reconnect replaces the keys (a rolled key, another account): recorded as a new connection.
        // Field by field, so nothing but these (no secret, sealed or not) reaches the log.
        return {
          type: 'StripeAccountConnected',
          data: {
            organization_id: command.account.organization_id,
            key_type: command.account.key_type,
            key_mode: command.account.key_mode,
            key_last4: command.account.key_last4,
            publishable_key: command.account.publishable_key,
            credentials_id: command.account.credentials_id,
            connected_at: command.now,
          },
        };
      case 'Disconnect':
        if (state.status !== 'connected') throw notFound('Stripe account', 'stripe_not_connected');
        return { type: 'StripeAccountDisconnected', data: { organization_id: command.organizationId, disconnected_at: command.now } };
    }
  },
};

/** Type, mode and last four of a key that looks like one of Stripe's secret or restricted keys; null otherwise. */
export function describeSecretKey(key: string): { type: StripeKeyType; mode: StripeKeyMode; last4: string } | null {
  const m = /^(sk|rk)_(test|live)_[A-Za-z0-9]{8,}$/.exec(key);
  if (!m) return null;
  return { type: m[1] === 'sk' ? 'secret' : 'restricted', mode: m[2] as StripeKeyMode, last4: key.slice(-4) };
}
