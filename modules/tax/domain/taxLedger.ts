import type { Decider, DomainEvent, TaxBehavior } from '../../../platform/domain/index.ts';
import { conflict, invalid, notFound } from '../../../platform/domain/index.ts';

/**
 * An organization's tax settings and rates, decided on one stream: whether it collects tax, the
 * behaviour of prices that do not say, and its rates (Stripe's TaxRate). One stream keeps "no two
 * active rates for the same place" true under concurrent writes.
 */

export type TaxRate = {
  id: string;
  object: 'tax_rate';
  display_name: string;
  description: string | null;
  /** Percent, at most four decimals; never changes (archive and create, as Stripe). */
  percentage: number;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
  /** A region (ISO 3166-2 subdivision code without the country, e.g. `BY`), or null. */
  state: string | null;
  /** Ours, not Stripe's: postal codes starting with this (e.g. `20` for Corsica) get this rate. */
  postal_code_prefix: string | null;
  jurisdiction: string | null;
  active: boolean;
  tax_type: 'vat';
  created: number;
};

export type TaxSettings = { enabled: boolean; default_tax_behavior: TaxBehavior };

export type TaxEvent =
  | DomainEvent<'TaxSettingsUpdated', { enabled: boolean; default_tax_behavior: TaxBehavior; updated_at: number }>
  | DomainEvent<'TaxRateCreated', { rate: TaxRate }>
  | DomainEvent<'TaxRateUpdated', { id: string; display_name: string; description: string | null; active: boolean; updated_at: number }>;

export type NewRate = Omit<TaxRate, 'id' | 'object' | 'tax_type' | 'created'>;

export type TaxCommand =
  | { type: 'UpdateTaxSettings'; enabled?: boolean; default_tax_behavior?: TaxBehavior; now: number }
  | { type: 'CreateTaxRate'; id: string; rate: NewRate; now: number }
  /**
   * Rates for countries without an active country-wide rate; nothing for the others (so a second
   * load adds nothing, and a seller's own rate is never doubled). A region's or postal prefix's
   * rate does not count: the rest of the country still needs one.
   */
  | { type: 'AddStarterRates'; rates: Array<{ id: string; rate: NewRate }>; now: number }
  | { type: 'UpdateTaxRate'; id: string; display_name?: string; description?: string | null; active?: boolean; now: number };

export type TaxState = { settings: TaxSettings; rates: TaxRate[] };

export const DEFAULT_TAX_SETTINGS: TaxSettings = { enabled: false, default_tax_behavior: 'exclusive' };

export const taxStream = (organizationId: string) => `tax-${organizationId}`;

/** Two rates apply to the same buyers: same country, region and postal prefix. */
export const samePlace = (a: Pick<TaxRate, 'country' | 'state' | 'postal_code_prefix'>, b: Pick<TaxRate, 'country' | 'state' | 'postal_code_prefix'>) =>
  a.country === b.country && a.state === b.state && a.postal_code_prefix === b.postal_code_prefix;

const placeName = (r: Pick<TaxRate, 'country' | 'state' | 'postal_code_prefix'>) =>
  [r.country, r.state, r.postal_code_prefix ? `postal codes ${r.postal_code_prefix}…` : null].filter(Boolean).join(' / ');

export function checkNewRate(rate: NewRate): void {
  if (rate.display_name.trim() === '' || rate.display_name.length > 50) throw invalid('invalid_display_name', 'The display name must be 1 to 50 characters.', 'display_name');
  if (!Number.isFinite(rate.percentage) || rate.percentage < 0 || rate.percentage > 100) throw invalid('invalid_percentage', 'The percentage must be between 0 and 100.', 'percentage');
  if (Math.abs(Math.round(rate.percentage * 10_000) - rate.percentage * 10_000) > 1e-6) throw invalid('invalid_percentage', 'The percentage may have at most four decimals.', 'percentage');
  if (!/^[A-Z]{2}$/.test(rate.country)) throw invalid('invalid_country', 'The country must be a two-letter ISO code, such as DE.', 'country');
  if (rate.state !== null && !/^[A-Z0-9]{1,3}$/.test(rate.state)) throw invalid('invalid_state', 'The state must be a region code of 1 to 3 letters or digits, such as BY.', 'state');
  if (rate.postal_code_prefix !== null && !/^[A-Z0-9]{1,10}$/.test(rate.postal_code_prefix)) {
    throw invalid('invalid_postal_code_prefix', 'The postal code prefix must be 1 to 10 letters or digits.', 'postal_code_prefix');
  }
}

function checkNoActiveTwin(rates: TaxRate[], place: Pick<TaxRate, 'country' | 'state' | 'postal_code_prefix'>, exceptId: string | null): void {
  const twin = rates.find((r) => r.active && r.id !== exceptId && samePlace(r, place));
  if (twin) throw conflict('tax_rate_exists', `An active rate (${twin.id}) already applies to ${placeName(place)}; archive it first.`);
}

const toRate = (id: string, rate: NewRate, now: number): TaxRate => ({
  id,
  object: 'tax_rate',
  display_name: rate.display_name.trim(),
  description: rate.description,
  percentage: rate.percentage,
  country: rate.country,
  state: rate.state,
  postal_code_prefix: rate.postal_code_prefix,
  jurisdiction: rate.jurisdiction,
  active: rate.active,
  tax_type: 'vat',
  created: now,
});

export const taxDecider: Decider<TaxState, TaxCommand, TaxEvent> = {
  initialState: () => ({ settings: DEFAULT_TAX_SETTINGS, rates: [] }),
  evolve(state, event) {
    switch (event.type) {
      case 'TaxSettingsUpdated':
        return { ...state, settings: { enabled: event.data.enabled, default_tax_behavior: event.data.default_tax_behavior } };
      case 'TaxRateCreated':
        return { ...state, rates: [...state.rates, event.data.rate] };
      case 'TaxRateUpdated': {
        const { id, display_name, description, active } = event.data;
        return { ...state, rates: state.rates.map((r) => (r.id === id ? { ...r, display_name, description, active } : r)) };
      }
    }
  },
  decide(command, state) {
    switch (command.type) {
      case 'UpdateTaxSettings': {
        const next = { enabled: command.enabled ?? state.settings.enabled, default_tax_behavior: command.default_tax_behavior ?? state.settings.default_tax_behavior };
        if (next.enabled === state.settings.enabled && next.default_tax_behavior === state.settings.default_tax_behavior) return [];
        return { type: 'TaxSettingsUpdated', data: { ...next, updated_at: command.now } };
      }
      case 'CreateTaxRate': {
        checkNewRate(command.rate);
        if (command.rate.active) checkNoActiveTwin(state.rates, command.rate, null);
        return { type: 'TaxRateCreated', data: { rate: toRate(command.id, command.rate, command.now) } };
      }
      case 'AddStarterRates': {
        const covered = new Set(state.rates.filter((r) => r.active && r.state === null && r.postal_code_prefix === null).map((r) => r.country));
        return command.rates
          .filter(({ rate }) => !covered.has(rate.country))
          .map(({ id, rate }) => ({ type: 'TaxRateCreated' as const, data: { rate: toRate(id, rate, command.now) } }));
      }
      case 'UpdateTaxRate': {
        const rate = state.rates.find((r) => r.id === command.id);
        if (!rate) throw notFound('Tax rate');
        const next = {
          display_name: command.display_name?.trim() ?? rate.display_name,
          description: command.description === undefined ? rate.description : command.description,
          active: command.active ?? rate.active,
        };
        if (next.display_name === '' || next.display_name.length > 50) throw invalid('invalid_display_name', 'The display name must be 1 to 50 characters.', 'display_name');
        if (next.active && !rate.active) checkNoActiveTwin(state.rates, rate, rate.id);
        if (next.display_name === rate.display_name && next.description === rate.description && next.active === rate.active) return [];
        return { type: 'TaxRateUpdated', data: { id: rate.id, ...next, updated_at: command.now } };
      }
    }
  },
};
