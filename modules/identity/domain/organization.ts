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

/** The seller's logo as pages and emails show it: PNG or JPEG, at most LOGO_MAX_BYTES. */
export type OrganizationLogo = {
  content_type: 'image/png' | 'image/jpeg';
  /** Hex SHA-256 of the bytes: the logo's public URL holds it, so a new logo is a new URL. */
  sha256: string;
  /** The bytes, base64. */
  data: string;
};

export const LOGO_MAX_BYTES = 256 * 1024;

/** A brand colour as stored: `#` and six lower-case hex digits. */
export const BRAND_COLOR = /^#[0-9a-f]{6}$/;

export type OrganizationEvent =
  | DomainEvent<'OrganizationCreated', { id: string; name: string; timezone: string; created_at: number }>
  /** `address` absent (events recorded before addresses were): the address stays as it was. */
  | DomainEvent<'OrganizationUpdated', { name: string; timezone: string; address?: OrganizationAddress | null; vat_number?: string | null; brand_color?: string | null; updated_at: number }>
  /** The seller's logo set (or removed: null). */
  | DomainEvent<'OrganizationLogoChanged', { logo: OrganizationLogo | null; updated_at: number }>
  /** Origins a public caller may send a session's success_url and cancel_url on, for every offer. */
  | DomainEvent<'OrganizationRedirectOriginsChanged', { allowed_redirect_origins: string[]; updated_at: number }>;

export type OrganizationCommand =
  | { type: 'CreateOrganization'; id: string; name: string; timezone: string; now: number }
  | {
      type: 'UpdateOrganization';
      name: string;
      timezone: string;
      address: OrganizationAddress | null;
      /** Left out: kept as it is (as for the logo). */
      vat_number?: string | null;
      /** `#rrggbb`; left out: kept as it is. */
      brand_color?: string | null;
      logo?: OrganizationLogo | null;
      /** Left out: kept as it is. */
      allowed_redirect_origins?: string[];
      now: number;
    };

export type OrganizationState =
  | { status: 'none' }
  | {
      status: 'active';
      id: string;
      name: string;
      timezone: string;
      address: OrganizationAddress | null;
      vat_number: string | null;
      /** `#rrggbb` (lower case): the hosted pages' accent; null: their default. */
      brand_color: string | null;
      logo: OrganizationLogo | null;
      allowed_redirect_origins: string[];
    };

/** The address as printed lines: street lines, postal code with city, region, country. */
export function addressLines(address: OrganizationAddress | null | undefined): string[] {
  if (!address) return [];
  const cityLine = [address.postal_code, address.city].filter(Boolean).join(' ');
  return [address.line1, address.line2, cityLine, address.region, address.country].filter((l): l is string => typeof l === 'string' && l.trim() !== '');
}

/** PNG or JPEG by their first bytes (an SVG could carry script), within LOGO_MAX_BYTES. */
function checkLogo(logo: OrganizationLogo): void {
  const size = Math.floor((logo.data.length * 3) / 4) - (logo.data.endsWith('==') ? 2 : logo.data.endsWith('=') ? 1 : 0);
  if (size > LOGO_MAX_BYTES) throw invalid('logo_too_large', `The logo must be at most ${LOGO_MAX_BYTES / 1024} KB.`, 'logo');
  const head = logo.data.slice(0, 12);
  const png = head.startsWith('iVBORw0KGgo');
  const jpeg = head.startsWith('/9j/');
  if (!(png && logo.content_type === 'image/png') && !(jpeg && logo.content_type === 'image/jpeg')) {
    throw invalid('invalid_logo', 'The logo must be a PNG or JPEG image (SVG is not accepted).', 'logo');
  }
}

/** The path of the logo's public URL: its content hash makes it cacheable for good. */
export const logoPath = (organizationId: string, logo: Pick<OrganizationLogo, 'sha256' | 'content_type'>): string =>
  `/logos/${organizationId}/${logo.sha256.slice(0, 32)}.${logo.content_type === 'image/png' ? 'png' : 'jpg'}`;

export const organizationStream = (id: string) => `organization-${id}`;

export const organizationDecider: Decider<OrganizationState, OrganizationCommand, OrganizationEvent> = {
  initialState: () => ({ status: 'none' }),
  evolve(state, event) {
    switch (event.type) {
      case 'OrganizationCreated':
        return {
          status: 'active',
          id: event.data.id,
          name: event.data.name,
          timezone: event.data.timezone,
          address: null,
          vat_number: null,
          brand_color: null,
          logo: null,
          allowed_redirect_origins: [],
        };
      case 'OrganizationUpdated':
        if (state.status !== 'active') return state;
        return {
          ...state,
          name: event.data.name,
          timezone: event.data.timezone,
          address: event.data.address === undefined ? state.address : event.data.address,
          vat_number: event.data.vat_number === undefined ? state.vat_number : event.data.vat_number,
          brand_color: event.data.brand_color === undefined ? state.brand_color : event.data.brand_color,
        };
      case 'OrganizationLogoChanged':
        return state.status === 'active' ? { ...state, logo: event.data.logo } : state;
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
        const vatNumber = command.vat_number === undefined ? state.vat_number : command.vat_number;
        const brandColor = command.brand_color === undefined ? state.brand_color : command.brand_color?.toLowerCase() ?? null;
        if (brandColor !== null && !BRAND_COLOR.test(brandColor)) throw invalid('invalid_brand_color', 'The brand colour must be #rrggbb, such as #1d4ed8.', 'brand_color');
        if (
          state.name !== command.name ||
          state.timezone !== command.timezone ||
          JSON.stringify(state.address) !== JSON.stringify(command.address) ||
          state.vat_number !== vatNumber ||
          state.brand_color !== brandColor
        ) {
          events.push({
            type: 'OrganizationUpdated',
            data: {
              name: command.name,
              timezone: command.timezone,
              address: command.address,
              // Absent when the command leaves it as it is (as events recorded before VAT numbers read).
              ...(command.vat_number !== undefined ? { vat_number: vatNumber } : {}),
              ...(brandColor !== state.brand_color ? { brand_color: brandColor } : {}),
              updated_at: command.now,
            },
          });
        }
        if (command.logo !== undefined && (command.logo?.sha256 ?? null) !== (state.logo?.sha256 ?? null)) {
          if (command.logo) checkLogo(command.logo);
          events.push({ type: 'OrganizationLogoChanged', data: { logo: command.logo, updated_at: command.now } });
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
