import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BEARER_ROUTE_ROLES, SCOPE_ROLES } from '../../modules/identity/domain/bearerAccess.ts';
import { enumerateRoutes } from '../helpers/routes.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The table of what each role's credentials may call names every bearer route, and only those. */
describe('the bearer routes’ roles', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ runProjections: false });
  });
  afterAll(() => server.close({ remove: true }));

  it('names each registered bearer route once, so a new route gets a decision (an unnamed one needs an owner)', () => {
    const bearer = enumerateRoutes(server.app)
      .filter((r) => r.protected && r.method !== 'HEAD')
      .map((r) => `${r.method} ${r.url}`);
    // Public routes that take an optional bearer credential.
    const optional = ['POST /api/checkout/sessions'];
    bearer.push(...optional);
    bearer.sort();
    expect(Object.keys(BEARER_ROUTE_ROLES).sort()).toEqual(bearer);
  });

  it('keeps to owners what the management routes keep to owners', () => {
    expect(SCOPE_ROLES).toEqual({
      'identity:read': 'member',
      'catalog:read': 'member',
      'checkout:read': 'member',
      'checkout:write': 'member',
      'subscriptions:read': 'member',
      'subscriptions:write': 'member',
      'automation:read': 'member',
      'webhooks:read': 'owner',
      'webhooks:write': 'owner',
      'customers:read': 'member',
      'customers:write': 'owner',
      'coupons:read': 'member',
      'coupons:write': 'member',
      'benefits:read': 'member',
      'benefits:write': 'member',
      'tax:read': 'member',
      'tax:write': 'owner',
      'license_keys:read': 'member',
      'license_keys:write': 'member',
      'files:read': 'member',
      'files:write': 'member',
    });
  });
});
