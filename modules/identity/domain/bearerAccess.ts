import { isOAuthScope, OAUTH_SCOPES, scopeForRoute, type OAuthScope } from '../../oauth/domain/oauthScopes.ts';
import type { Role } from './user.ts';

/**
 * The least role a person must hold in the organization, now, for a bearer credential of theirs
 * (an API key they created, an app's token they granted) to call each bearer route. A credential
 * never does more than its person may do through the management routes: what these allow
 * members (reading the catalog, checkout sessions, automation runs) members' credentials may do;
 * what they keep to owners (webhook endpoints and their deliveries, whose secrets and payloads
 * hold buyers' data) only an owner's credentials may do.
 *
 * Keyed by method and registered URL. A bearer route missing here needs an owner (the table is
 * checked against the registered routes by test/identity/bearerAccess.integration.test.ts).
 */
export const BEARER_ROUTE_ROLES: Readonly<Record<string, Role>> = {
  'GET /api/users/me': 'member',
  'GET /api/catalog/products': 'member',
  'GET /api/catalog/products/:product': 'member',
  'GET /api/catalog/products/:product/plans': 'member',
  // Kept for compatibility; they deny every caller anyway.
  'POST /api/catalog/products': 'member',
  'PUT /api/catalog/products/:product': 'member',
  'PATCH /api/catalog/products/:product': 'member',
  'DELETE /api/catalog/products/:product': 'member',
  'GET /api/checkout/sessions': 'member',
  // Public without a credential; with one, its redirect URLs are the seller's to set (members edit offers).
  'POST /api/checkout/sessions': 'member',
  'GET /api/checkout/sessions/:id/history': 'member',
  'GET /api/subscriptions': 'member',
  'GET /api/subscriptions/:id': 'member',
  'GET /api/subscriptions/:id/history': 'member',
  'GET /api/subscriptions/:id/statement': 'member',
  // Members run subscriptions as they run checkout; a cancel with a prorated refund also needs an owner (checked by the route).
  'POST /api/subscriptions/:id/cancel': 'member',
  'POST /api/subscriptions/:id/reactivate': 'member',
  'POST /api/subscriptions/:id/pause': 'member',
  'POST /api/subscriptions/:id/resume': 'member',
  'POST /api/subscriptions/:id/change_plan': 'member',
  'DELETE /api/subscriptions/:id/discount': 'member',
  'GET /api/invoices': 'member',
  'GET /api/invoices/:id': 'member',
  'GET /api/metrics/subscriptions': 'member',
  'GET /api/automation/triggers/:trigger_id/test': 'member',
  'GET /api/automation/workflows/:workflow_id': 'member',
  // Test mode only: they move no real money and show no buyer's data.
  'GET /api/test_clocks': 'member',
  'POST /api/test_clocks': 'member',
  'GET /api/test_clocks/:id': 'member',
  'POST /api/test_clocks/:id/advance': 'member',
  'DELETE /api/test_clocks/:id': 'member',
  'GET /api/webhook-endpoints': 'owner',
  'POST /api/webhook-endpoints': 'owner',
  'GET /api/webhook-endpoints/:id': 'owner',
  'PATCH /api/webhook-endpoints/:id': 'owner',
  'DELETE /api/webhook-endpoints/:id': 'owner',
  'POST /api/webhook-endpoints/:id/rotate-secret': 'owner',
  'GET /api/webhook-endpoints/:id/deliveries': 'owner',
  'POST /api/webhook-deliveries/:id/resend': 'owner',
  'GET /api/subscription_settings': 'member',
  // What the lists these export already show members.
  'GET /api/exports/sales.csv': 'member',
  'GET /api/exports/invoices.csv': 'member',
  'GET /api/exports/customers.csv': 'member',
  // Sums of the invoices members read one by one.
  'GET /api/reports/tax': 'member',
  'GET /api/exports/tax.csv': 'member',
  'PUT /api/subscription_settings': 'owner',
  // Refunds move money back: owners only, as in the dashboard. Credit notes are read as invoices are.
  'POST /api/invoices/:id/refunds': 'owner',
  'GET /api/credit_notes': 'member',
  'GET /api/credit_notes/:id': 'member',
  'GET /api/credit_notes/:id/pdf': 'member',
  'GET /api/customers': 'member',
  'GET /api/customers/:id': 'member',
  'GET /api/customers/:id/history': 'member',
  'GET /api/customers/:id/invoices': 'member',
  // An erasure cannot be undone: the organization's owners decide it.
  'POST /api/customers/:id/redact': 'owner',
  // A member runs subscriptions for buyers; a portal session lets a buyer do the same to their own.
  'POST /api/customers/:id/portal_sessions': 'member',
  'GET /api/portal_settings': 'member',
  'PUT /api/portal_settings': 'owner',
  // Members set prices (offers): a coupon is a price too.
  'GET /api/coupons': 'member',
  'POST /api/coupons': 'member',
  'GET /api/coupons/:id': 'member',
  'POST /api/coupons/:id': 'member',
  'DELETE /api/coupons/:id': 'member',
  'GET /api/promotion_codes': 'member',
  'POST /api/promotion_codes': 'member',
  'GET /api/promotion_codes/:id': 'member',
  'POST /api/promotion_codes/:id': 'member',
  // Members edit products: their benefits are part of them.
  'GET /api/benefits': 'member',
  'GET /api/benefits/:benefit': 'member',
  'PATCH /api/benefits/:benefit': 'member',
  'DELETE /api/benefits/:benefit': 'member',
  'GET /api/products/:product/benefits': 'member',
  'POST /api/products/:product/benefits': 'member',
  'GET /api/benefit_grants': 'member',
  // Tax settings and rates: what members see in the dashboard; the owners change them.
  'GET /api/tax/settings': 'member',
  'POST /api/tax/settings': 'owner',
  'GET /api/tax_rates': 'member',
  'POST /api/tax_rates': 'owner',
  'POST /api/tax_rates/starter': 'owner',
  'GET /api/tax_rates/:id': 'member',
  'POST /api/tax_rates/:id': 'owner',
  // License keys: members support buyers (see the key, turn it off or on).
  'GET /api/license_keys': 'member',
  'GET /api/license_keys/:id': 'member',
  'POST /api/license_keys/:id/disable': 'member',
  'POST /api/license_keys/:id/enable': 'member',
  // Members set up products and their benefits: the files those deliver are theirs to manage too.
  'GET /api/files': 'member',
  'POST /api/files': 'member',
  'GET /api/files/:file': 'member',
  'DELETE /api/files/:file': 'member',
  'GET /api/files/:file/downloads': 'member',
  'GET /api/file_settings': 'member',
  'PUT /api/file_settings': 'member',
};

const RANK: Record<Role, number> = { member: 0, owner: 1 };

/** Whether `role` is at least `needed`. */
export const roleAtLeast = (role: Role, needed: Role): boolean => RANK[role] >= RANK[needed];

/** The role a bearer route needs (HEAD as its GET); an unknown route needs an owner. */
export function roleForRoute(method: string, routeUrl: string): Role {
  const m = method === 'HEAD' ? 'GET' : method;
  return BEARER_ROUTE_ROLES[`${m} ${routeUrl}`] ?? 'owner';
}

/** Whether a person with `role` (null: not a member) may call the route through a credential. */
export const mayCallRoute = (role: Role | null, method: string, routeUrl: string): boolean =>
  role !== null && roleAtLeast(role, roleForRoute(method, routeUrl));

/**
 * The role each OAuth scope needs: the highest role any route it names needs, so an app holding
 * the scope can use every route of it. Derived from the table, never written twice.
 */
export const SCOPE_ROLES: Readonly<Record<OAuthScope, Role>> = (() => {
  const roles = Object.fromEntries(Object.keys(OAUTH_SCOPES).map((s) => [s, 'member'])) as Record<OAuthScope, Role>;
  for (const [key, role] of Object.entries(BEARER_ROUTE_ROLES)) {
    const space = key.indexOf(' ');
    const scope = scopeForRoute(key.slice(0, space), key.slice(space + 1));
    if (scope && !roleAtLeast(roles[scope], role)) roles[scope] = role;
  }
  return roles;
})();

/** Whether a person with `role` may grant `scope` to an app (`openid` names only who they are). */
export function mayGrantScope(role: Role, scope: string): boolean {
  if (scope === 'openid') return true;
  return isOAuthScope(scope) && roleAtLeast(role, SCOPE_ROLES[scope]);
}

/** The scopes of an authorization request a person is asked about: the API's and `openid`, once each. */
export const requestedScopes = (scope: string): string[] => [...new Set(scope.split(' ').filter((s) => s === 'openid' || isOAuthScope(s)))];

/** What a person with `role` in the organization chosen grants of `requested`, and what not. */
export function splitGrantable(role: Role | null, requested: readonly string[]): { granted: string[]; refused: string[] } {
  const granted = requested.filter((s) => role !== null && mayGrantScope(role, s));
  return { granted, refused: requested.filter((s) => !granted.includes(s)) };
}
