import { describe, expect, it } from 'vitest';
import { apiKeyDecider } from '../../modules/identity/domain/apiKey.ts';
import { addressLines, organizationDecider } from '../../modules/identity/domain/organization.ts';
import { userDecider } from '../../modules/identity/domain/user.ts';
import { deciderSpec } from '../../platform/domain/specification.ts';

const created = { type: 'OrganizationCreated', data: { id: 'org_1', name: 'Acme', timezone: 'UTC', created_at: 100 } } as const;

describe('organization', () => {
  const spec = deciderSpec(organizationDecider);
  it('is created once', () => {
    spec.given([]).when({ type: 'CreateOrganization', id: 'org_1', name: 'Acme', timezone: 'UTC', now: 100 }).then([created]);
    spec.given([created]).when({ type: 'CreateOrganization', id: 'org_1', name: 'Acme', timezone: 'UTC', now: 200 }).thenThrows('organization_exists');
  });
  it('refuses a blank name', () => {
    spec.given([]).when({ type: 'CreateOrganization', id: 'org_1', name: '  ', timezone: 'UTC', now: 100 }).thenThrows('invalid_name');
  });
  it('records an update only when something changed', () => {
    spec.given([created]).when({ type: 'UpdateOrganization', name: 'Acme', timezone: 'UTC', address: null, now: 200 }).then([]);
    spec
      .given([created])
      .when({ type: 'UpdateOrganization', name: 'Acme BV', timezone: 'Europe/Amsterdam', address: null, now: 200 })
      .then([{ type: 'OrganizationUpdated', data: { name: 'Acme BV', timezone: 'Europe/Amsterdam', address: null, updated_at: 200 } }]);
    spec.given([]).when({ type: 'UpdateOrganization', name: 'X', timezone: 'UTC', address: null, now: 200 }).thenThrows('not_found');
  });
  it('keeps its address: set, unchanged, and kept by an update recorded before addresses were', () => {
    const address = { line1: 'Keizersgracht 1', line2: null, postal_code: '1015 CJ', city: 'Amsterdam', region: null, country: 'NL' };
    const set = { type: 'OrganizationUpdated', data: { name: 'Acme', timezone: 'UTC', address, updated_at: 200 } } as const;
    spec.given([created]).when({ type: 'UpdateOrganization', name: 'Acme', timezone: 'UTC', address, now: 200 }).then([set]);
    spec.given([created, set]).when({ type: 'UpdateOrganization', name: 'Acme', timezone: 'UTC', address: { ...address }, now: 300 }).then([]);
    const legacy = { type: 'OrganizationUpdated', data: { name: 'Acme NV', timezone: 'UTC', updated_at: 300 } } as const;
    spec.given([created, set, legacy]).when({ type: 'UpdateOrganization', name: 'Acme NV', timezone: 'UTC', address, now: 400 }).then([]);
    expect(addressLines(address)).toEqual(['Keizersgracht 1', '1015 CJ Amsterdam', 'NL']);
  });
  it('keeps its VAT number and logo until changed; refuses a logo that is not a PNG or JPEG, or too large', () => {
    const base = { type: 'UpdateOrganization', name: 'Acme', timezone: 'UTC', address: null, now: 200 } as const;
    const vat = { type: 'OrganizationUpdated', data: { name: 'Acme', timezone: 'UTC', address: null, vat_number: 'NL1', updated_at: 200 } } as const;
    spec.given([created]).when({ ...base, vat_number: 'NL1' }).then([vat]);
    spec.given([created, vat]).when(base).then([]);
    spec.given([created, vat]).when({ ...base, vat_number: 'NL1' }).then([]);
    const png = { content_type: 'image/png', sha256: 'a'.repeat(64), data: 'iVBORw0KGgoAAAANSUhEUg==' } as const;
    const logo = { type: 'OrganizationLogoChanged', data: { logo: png, updated_at: 200 } } as const;
    spec.given([created]).when({ ...base, logo: png }).then([logo]);
    spec.given([created, logo]).when({ ...base, logo: png }).then([]);
    spec.given([created, logo]).when({ ...base, logo: null }).then([{ type: 'OrganizationLogoChanged', data: { logo: null, updated_at: 200 } }]);
    spec.given([created]).when({ ...base, logo: { ...png, content_type: 'image/jpeg' } }).thenThrows('invalid_logo');
    spec.given([created]).when({ ...base, logo: { ...png, data: 'PHN2ZyB4bWxucz0i' } }).thenThrows('invalid_logo');
    spec.given([created]).when({ ...base, logo: { ...png, data: `iVBORw0KGgo${'A'.repeat(350_000)}` } }).thenThrows('logo_too_large');
  });
  it('records a brand colour lower case, only when it changes, keeps it until changed, and refuses anything but #rrggbb', () => {
    const base = { type: 'UpdateOrganization', name: 'Acme', timezone: 'UTC', address: null, now: 200 } as const;
    const colour = { type: 'OrganizationUpdated', data: { name: 'Acme', timezone: 'UTC', address: null, brand_color: '#ffd500', updated_at: 200 } } as const;
    spec.given([created]).when({ ...base, brand_color: '#FFD500' }).then([colour]);
    spec.given([created, colour]).when({ ...base, brand_color: '#ffd500' }).then([]);
    spec.given([created, colour]).when(base).then([]);
    spec.given([created, colour]).when({ ...base, brand_color: null }).then([{ type: 'OrganizationUpdated', data: { name: 'Acme', timezone: 'UTC', address: null, brand_color: null, updated_at: 200 } }]);
    spec.given([created]).when({ ...base, brand_color: 'red' }).thenThrows('invalid_brand_color');
    spec.given([created]).when({ ...base, brand_color: '#ffd500;}' }).thenThrows('invalid_brand_color');
  });
});

describe('user', () => {
  const spec = deciderSpec(userDecider);
  const userCreated = { type: 'UserCreated', data: { id: 'usr_1', email: 'a@example.com', organization_id: 'org_1', created_at: 1 } } as const;
  it('normalises the email on creation', () => {
    spec.given([]).when({ type: 'CreateUser', id: 'usr_1', email: ' A@Example.com ', organizationId: 'org_1', now: 1 }).then([userCreated]);
  });
  it('joins an organization once', () => {
    spec
      .given([userCreated])
      .when({ type: 'JoinOrganization', organizationId: 'org_2', now: 2 })
      .then([{ type: 'UserJoinedOrganization', data: { organization_id: 'org_2', joined_at: 2 } }]);
    spec.given([userCreated]).when({ type: 'JoinOrganization', organizationId: 'org_1', now: 2 }).then([]);
  });
  it('switches only to an organization it belongs to', () => {
    spec.given([userCreated]).when({ type: 'SwitchOrganization', organizationId: 'org_2' }).thenThrows('not_a_member');
    spec
      .given([userCreated, { type: 'UserJoinedOrganization', data: { organization_id: 'org_2', joined_at: 2 } }])
      .when({ type: 'SwitchOrganization', organizationId: 'org_2' })
      .then([{ type: 'UserSwitchedOrganization', data: { organization_id: 'org_2' } }]);
  });
});

describe('API key', () => {
  const spec = deciderSpec(apiKeyDecider);
  const create = {
    type: 'CreateApiKey',
    id: 'key_1',
    userId: 'usr_1',
    organizationId: 'org_1',
    name: 'ci',
    secretHash: 'ab'.repeat(32),
    userIsMember: true,
    expiresAt: null,
    now: 5,
  } as const;
  const keyCreated = {
    type: 'ApiKeyCreated',
    data: { id: 'key_1', user_id: 'usr_1', organization_id: 'org_1', name: 'ci', secret_hash: 'ab'.repeat(32), created_at: 5, expires_at: null },
  } as const;
  it('records only the hash of the secret', () => {
    spec.given([]).when(create).then([keyCreated]);
  });
  it('may expire, but not before it is made', () => {
    spec.given([]).when({ ...create, expiresAt: 3605 }).then([{ ...keyCreated, data: { ...keyCreated.data, expires_at: 3605 } }]);
    spec.given([]).when({ ...create, expiresAt: 5 }).thenThrows('expires_at_past');
  });
  it('belongs to an organization the user is a member of', () => {
    spec.given([]).when({ ...create, userIsMember: false }).thenThrows('not_a_member');
  });
  it('is revoked once, the event naming why', () => {
    spec.given([keyCreated]).when({ type: 'RevokeApiKey', reason: 'manual', now: 9 }).then([{ type: 'ApiKeyRevoked', data: { revoked_at: 9, reason: 'manual' } }]);
    spec.given([keyCreated]).when({ type: 'RevokeApiKey', reason: 'member_removed', now: 9 }).then([{ type: 'ApiKeyRevoked', data: { revoked_at: 9, reason: 'member_removed' } }]);
    spec.given([keyCreated, { type: 'ApiKeyRevoked', data: { revoked_at: 9 } }]).when({ type: 'RevokeApiKey', reason: 'member_removed', now: 10 }).then([]);
    spec.given([]).when({ type: 'RevokeApiKey', reason: 'manual', now: 10 }).thenThrows('not_found');
  });
  it('records a use at most once per interval, and none once revoked', () => {
    const used = (at: number) => ({ type: 'ApiKeyUsed', data: { used_at: at } }) as const;
    spec.given([keyCreated]).when({ type: 'RecordApiKeyUse', now: 10, every: 300 }).then([used(10)]);
    spec.given([keyCreated, used(10)]).when({ type: 'RecordApiKeyUse', now: 309, every: 300 }).then([]);
    spec.given([keyCreated, used(10)]).when({ type: 'RecordApiKeyUse', now: 310, every: 300 }).then([used(310)]);
    spec.given([keyCreated, { type: 'ApiKeyRevoked', data: { revoked_at: 9 } }]).when({ type: 'RecordApiKeyUse', now: 10, every: 300 }).then([]);
  });
});
