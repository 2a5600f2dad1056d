import { checkRedirectOrigins } from '../../checkout/domain/redirectUrls.ts';
import type { Decider, DomainEvent } from '../../../platform/domain/index.ts';
import { conflict, invalid, notFound } from '../../../platform/domain/index.ts';

/** The seller's postal address, as receipts and invoices print it. */
export type OrganizationAddress = {
  line1: string;
  line2: string | null;
  postal_code: string | null;
  city: string;
  region: string | null;
  /** ISO 3166-1 alpha-2, upper case. */
  country: string;
};

export type OrganizationEvent =
  | DomainEvent<'OrganizationCreated', { id: string; name: string; timezone: string; created_at: number }>
  /** `address` absent (events recorded before addresses were): the address stays as it was. */
  | DomainEvent<'OrganizationUpdated', { name: string; timezone: string; address?: OrganizationAddress | null; updated_at: number }>
  /** Origins a public caller may send a session's success_url and cancel_url on, for every offer. */
  | DomainEvent<'OrganizationRedirectOriginsChanged', { allowed_redirect_origins: string[]; updated_at: number }>;

export type OrganizationCommand =
  | { type: 'CreateOrganization'; id: string; name: string; timezone: string; now: number }
  | {
      type: 'UpdateOrganization';
      name: string;
      timezone: string;
      address: OrganizationAddress | null;
      /** Left out: kept as it is. */
      allowed_redirect_origins?: string[];
      now: number;
    };

export type OrganizationState =
  | { status: 'none' }
  | { status: 'active'; id: string; name: string; timezone: string; address: OrganizationAddress | null; allowed_redirect_origins: string[] };

/** The address as printed lines: street lines, postal code with city, region, country. */
export function addressLines(address: OrganizationAddress | null | undefined): string[] {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city].filter(Boolean).join(' ');
  return [address.line1, address.line2, cityLine, address.region, address.country].filter((l): l is string => typeof l === 'string' && l.trim() !== '');
}

export const organizationStream = (id: string) => `organization-${id}`;

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return { status: 'active', id: event.data.id, name: event.data.name, timezone: event.data.timezone, address: null, allowed_redirect_origins: [] };
      case 'OrganizationUpdated':
        if (state.status !== 'active') return state;
        return {
          ...state,
          name: event.data.name,
          timezone: event.data.timezone,
          address: event.data.address === undefined ? state.address : event.data.address,
        };
      case 'OrganizationRedirectOriginsChanged':
        return state.status === 'active' ? { ...state, allowed_redirect_origins: event.data.allowed_redirect_origins } : state;
    }
  },
  decide(command, state) {
    if (command.name.trim() === '') throw invalid('invalid_name', 'The name field is required.', 'name');
    switch (command.type) {
      case 'CreateOrganization':
        if (state.status !== 'none') throw conflict('organization_exists', 'The organization already exists.');
        return {
          type: 'OrganizationCreated',
          data: { id: command.id, name: command.name, timezone: command.timezone, created_at: command.now },
        };
      case 'UpdateOrganization': {
        if (state.status === 'none') throw notFound('Organization');
        checkRedirectOrigins(command.allowed_redirect_origins);
        const events: OrganizationEvent[] = [];
        if (state.name !== command.name || state.timezone !== command.timezone || JSON.stringify(state.address) !== JSON.stringify(command.address)) {
          events.push({ type: 'OrganizationUpdated', data: { name: command.name, timezone: command.timezone, address: command.address, updated_at: command.now } });
        }
        const origins = command.allowed_redirect_origins;
        if (origins && JSON.stringify(origins) !== JSON.stringify(state.allowed_redirect_origins)) {
          events.push({ type: 'OrganizationRedirectOriginsChanged', data: { allowed_redirect_origins: origins, updated_at: command.now } });
        }
        return events;
      }
    }
  },
};
