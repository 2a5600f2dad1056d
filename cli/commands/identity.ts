import {
  createApiKey,
  createOrganization,
  createUser,
  revokeApiKey,
} from '../../modules/identity/identityCommands.ts';
import { updateOrganization } from '../../modules/identity/accountCommands.ts';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { OrganizationAddress, OrganizationLogo } from '../../modules/identity/domain/organization.ts';
import { addressLines } from '../../modules/identity/domain/organization.ts';
import { CliUsageError, requireArg, requireOption, type CliCommand } from '../command.ts';
import { formatInvitation, invitationIfNeeded, type Invitation } from './userAccess.ts';

export const orgCreateCommand: CliCommand = {
  path: ['org', 'create'],
  usage: 'org create --name N [--timezone TZ]',
  description: 'Create an organization (timezone defaults to UTC).',
  options: { name: 'string', timezone: 'string' },
  async run({ options, commandContext }) {
    const name = requireOption(options, 'name');
    const timezone = typeof options.timezone === 'string' ? options.timezone : 'UTC';
    if (!isTimeZone(timezone)) throw new CliUsageError(`--timezone: unknown time zone '${timezone}'`);
    return createOrganization(commandContext(), { name, timezone });
  },
  format: (o: { id: string; name: string; timezone: string }) => `organization ${o.id} created: ${o.name} (${o.timezone})`,
};

/** A PNG or JPEG file as the organization's logo; the domain checks its bytes and size. */
function readLogo(path: string): OrganizationLogo {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path);
  } catch {
    throw new CliUsageError(`--logo: cannot read '${path}'`);
  }
  const content_type = path.toLowerCase().endsWith('.png') ? 'image/png' : /\.jpe?g$/i.test(path) ? 'image/jpeg' : null;
  if (!content_type) throw new CliUsageError('--logo: give a .png or .jpg file (SVG is not accepted)');
  return { content_type, data: bytes.toString('base64'), sha256: createHash('sha256').update(bytes).digest('hex') };
}

const ADDRESS_OPTIONS = { line1: 'line1', line2: 'line2', 'postal-code': 'postal_code', city: 'city', region: 'region', country: 'country' } as const;

export const orgUpdateCommand: CliCommand = {
  path: ['org', 'update'],
  usage: 'org update ORG [--name N] [--timezone TZ] [--line1 L --city C --country CC [--line2 L] [--postal-code P] [--region R] | --no-address] [--vat-number V] [--brand-color "#rrggbb" | --no-brand-color] [--logo FILE.png|jpg | --no-logo]',
  maxArgs: 1,
  description:
    "Change an organization's name, time zone, postal address, VAT number, brand colour or logo (the hosted checkout, receipts, invoice PDFs and buyer emails show them; the customer portal takes the brand colour). The address options give the whole address; --no-address removes it; --vat-number '' removes the VAT number.",
  options: {
    name: 'string',
    timezone: 'string',
    line1: 'string',
    line2: 'string',
    'postal-code': 'string',
    city: 'string',
    region: 'string',
    country: 'string',
    'no-address': 'boolean',
    'vat-number': 'string',
    'brand-color': 'string',
    'no-brand-color': 'boolean',
    logo: 'string',
    'no-logo': 'boolean',
  },
  async run({ args, options, commandContext }) {
    const organizationId = requireArg(args, 'org update takes the organization id (org_…)');
    const name = typeof options.name === 'string' ? options.name : undefined;
    // The HTTP route's schemas (the same rules as PATCH /manage/api/organization), loaded only here.
    const { Address, BrandColor } = await import('../../modules/identity/http/organizationRoutes.ts');
    const timezone = typeof options.timezone === 'string' ? options.timezone : undefined;
    if (timezone !== undefined && !isTimeZone(timezone)) throw new CliUsageError(`--timezone: unknown time zone '${timezone}'`);
    const given = Object.entries(ADDRESS_OPTIONS).filter(([option]) => typeof options[option] === 'string');
    let address: OrganizationAddress | null | undefined;
    if (options['no-address'] === true) {
      if (given.length > 0) throw new CliUsageError('--no-address removes the address: give it without the address options');
      address = null;
    } else if (given.length > 0) {
      const parsed = Address.safeParse(Object.fromEntries(given.map(([option, field]) => [field, options[option]])));
      if (!parsed.success) {
        const issue = parsed.error.issues[0]!;
        const option = Object.entries(ADDRESS_OPTIONS).find(([, field]) => field === issue.path[0])?.[0] ?? String(issue.path[0]);
        throw new CliUsageError(`--${option}: ${issue.code === 'invalid_type' ? 'is required with the other address options' : issue.message}`);
      }
      address = parsed.data;
    }
    const vat_number = typeof options['vat-number'] === 'string' ? options['vat-number'].trim() || null : undefined;
    let brand_color: string | null | undefined;
    if (options['no-brand-color'] === true) brand_color = null;
    else if (typeof options['brand-color'] === 'string') {
      const parsed = BrandColor.safeParse(options['brand-color'].trim());
      if (!parsed.success) throw new CliUsageError(`--brand-color: ${parsed.error.issues[0]!.message}`);
      brand_color = parsed.data;
    }
    let logo: OrganizationLogo | null | undefined;
    if (options['no-logo'] === true) logo = null;
    else if (typeof options.logo === 'string') logo = readLogo(options.logo);
    if (name === undefined && timezone === undefined && address === undefined && vat_number === undefined && brand_color === undefined && logo === undefined) {
      throw new CliUsageError('org update needs --name, --timezone, address options, --no-address, --vat-number, --brand-color, --no-brand-color, --logo or --no-logo');
    }
    const updated = await updateOrganization(commandContext(organizationId), organizationId, { name, timezone, address, vat_number, brand_color, logo });
    // The logo's hash and type, not its bytes.
    return { ...updated, logo: updated.logo ? { content_type: updated.logo.content_type, sha256: updated.logo.sha256 } : null };
  },
  format: (o: { id: string; name: string; timezone: string; address: OrganizationAddress | null; vat_number: string | null; brand_color: string | null; logo: { content_type: string } | null }) =>
    [
      `organization ${o.id}: ${o.name} (${o.timezone})`,
      ...addressLines(o.address).map((l) => `  ${l}`),
      ...(o.vat_number ? [`  VAT ${o.vat_number}`] : []),
      ...(o.brand_color ? [`  brand colour ${o.brand_color}`] : []),
      ...(o.logo ? [`  logo: ${o.logo.content_type}`] : []),
    ].join('\n'),
};

export const userCreateCommand: CliCommand = {
  path: ['user', 'create'],
  usage: 'user create --email E --org ORG [--role owner|member]',
  description: 'Create a user in an organization (or add an existing user to it), as owner unless --role member; prints a one-time invitation link (24 h) for a user who cannot sign in yet.',
  options: { email: 'string', org: 'string', role: 'string' },
  async run({ options, commandContext, services }) {
    const email = requireOption(options, 'email');
    const org = requireOption(options, 'org');
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new CliUsageError(`--email: '${email}' is not an email address`);
    const role = options.role ?? 'owner';
    if (role !== 'owner' && role !== 'member') throw new CliUsageError(`--role: '${String(role)}' is not owner or member`);
    const user = await createUser(commandContext(org), { email, organizationId: org, role });
    return { ...user, invitation: await invitationIfNeeded(services, commandContext(org), user.id) };
  },
  format: (u: { id: string; email: string; created: boolean; joined: boolean; invitation: Invitation | null }) =>
    (u.created
      ? `user ${u.id} created: ${u.email}`
      : u.joined
        ? `user ${u.id} (${u.email}) added to the organization`
        : `user ${u.id} (${u.email}) was already a member of the organization`) + (u.invitation ? `\n${formatInvitation(u.invitation)}` : ''),
};

export const apiKeyCreateCommand: CliCommand = {
  path: ['api-key', 'create'],
  usage: 'api-key create --user U --org ORG [--name N] [--expires-at UNIX]',
  description: 'Create an API key; the token is printed once and only its hash is kept. --expires-at: Unix seconds from which it answers 401.',
  options: { user: 'string', org: 'string', name: 'string', 'expires-at': 'string' },
  async run({ options, commandContext }) {
    const userId = requireOption(options, 'user');
    const organizationId = requireOption(options, 'org');
    // An email is the natural first guess, and would only answer 'User not found.'.
    if (userId.includes('@')) {
      throw new CliUsageError(`--user takes the user's id (usr_…), not an email: 'commerce user create --email ${userId} --org ${organizationId}' prints it`);
    }
    const name = typeof options.name === 'string' ? options.name : undefined;
    const expiresAt = options['expires-at'];
    if (expiresAt !== undefined && (typeof expiresAt !== 'string' || !/^\d{1,12}$/.test(expiresAt))) {
      throw new CliUsageError('--expires-at takes Unix seconds, e.g. --expires-at 1767225600');
    }
    return createApiKey(commandContext(organizationId), {
      userId,
      organizationId,
      ...(name ? { name } : {}),
      ...(expiresAt !== undefined ? { expiresAt: Number(expiresAt) } : {}),
    });
  },
  format: (k: { id: string; token: string; expires_at: number | null }) =>
    `API key ${k.id} created${k.expires_at === null ? '' : `, expiring ${new Date(k.expires_at * 1000).toISOString()}`}. Copy the token now; it is not shown again:\n\n  ${k.token}\n`,
};

export const apiKeyRevokeCommand: CliCommand = {
  path: ['api-key', 'revoke'],
  usage: 'api-key revoke ID',
  maxArgs: 1,
  description: 'Revoke an API key: it answers 401 from then on.',
  async run({ args, commandContext }) {
    return revokeApiKey(commandContext(), requireArg(args, 'api-key revoke needs the key id (key_…)'));
  },
  format: (r: { id: string; revoked: boolean }) => (r.revoked ? `API key ${r.id} revoked` : `API key ${r.id} was already revoked`),
};

function isTimeZone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: tz });
    return true;
  } catch {
    return false;
  }
}
