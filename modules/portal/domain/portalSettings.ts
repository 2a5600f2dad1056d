import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';

/**
 * What an organization's buyers may do in the hosted portal, after Stripe's portal configuration; one
 * stream per organization. Plan switches are off until the seller allows them: a pricing decision.
 */
export type PortalSettings = {
  /** Buyers may ask for a sign-in link by email at /portal/<organization>. */
  magic_link: boolean;
  /** Cancel a subscription at the end of its period, and take that back. */
  subscription_cancel: boolean;
  /** Replace the card a subscription is charged on. */
  payment_method_update: boolean;
  /** Move a subscription to another recurring plan of its product, in its currency. */
  subscription_update: boolean;
  /**
   * Other products (route keys) whose plans a buyer may move a subscription to as well, as in
   * Stripe's `features.subscription_update.products`; empty: its own product's only.
   */
  subscription_update_products: string[];
};

export const DEFAULT_PORTAL_SETTINGS: PortalSettings = { magic_link: true, subscription_cancel: true, payment_method_update: true, subscription_update: false, subscription_update_products: [] };

const sameProducts = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((p, i) => p === b[i]);

/** `subscription_update_products` is absent from the changes recorded before it existed. */
export type PortalSettingsEvent = DomainEvent<'PortalSettingsChanged', Omit<PortalSettings, 'subscription_update_products'> & { subscription_update_products?: string[]; changed_at: number }>;
export type PortalSettingsCommand = { type: 'ChangePortalSettings'; settings: PortalSettings; now: number };

export const portalSettingsStream = (organizationId: string) => `portal_settings-${organizationId}`;

export const portalSettingsDecider: Decider<PortalSettings, PortalSettingsCommand, PortalSettingsEvent> = {
  initialState: () => DEFAULT_PORTAL_SETTINGS,
  evolve: (_state, event) => ({
    magic_link: event.data.magic_link,
    subscription_cancel: event.data.subscription_cancel,
    payment_method_update: event.data.payment_method_update,
    subscription_update: event.data.subscription_update,
    subscription_update_products: event.data.subscription_update_products ?? [],
  }),
  decide(command, state) {
    const s = command.settings;
    if (
      s.magic_link === state.magic_link &&
      s.subscription_cancel === state.subscription_cancel &&
      s.payment_method_update === state.payment_method_update &&
      s.subscription_update === state.subscription_update &&
      sameProducts(s.subscription_update_products, state.subscription_update_products)
    ) {
      return [];
    }
    return { type: 'PortalSettingsChanged', data: { ...s, changed_at: command.now } };
  },
};
