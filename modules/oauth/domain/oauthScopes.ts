/**
 * The scopes an app may ask for, and the one each bearer route needs. An API key is not limited
 * by scopes; an OAuth token reaches only the routes its scopes name. The table is the documented
 * contract (docs/oauth.md); a bearer route it does not name is refused to every OAuth token.
 */
export const OAUTH_SCOPES = {
  'identity:read': 'See your email and the organization you connected (GET /api/users/me).',
  'catalog:read': 'Read the products, plans and prices of the catalog.',
  'checkout:read': 'Read checkout sessions and their history, with buyers’ emails.',
  'checkout:write': 'Create checkout sessions that send buyers back to any address the app chooses.',
  'subscriptions:read': 'Read subscriptions, their history and statements, invoices, subscription metrics and test clocks, with buyers’ emails.',
  'subscriptions:write': 'Cancel, reactivate, pause, resume subscriptions and change their plan; create, advance and delete test clocks.',
  'automation:read': 'Read automation triggers’ test data and workflow runs.',
  'webhooks:read': 'Read event webhook endpoints and their deliveries.',
  'webhooks:write': 'Create, change and delete event webhook endpoints and resend deliveries.',
  'customers:read': 'Read customers, their totals and history, with their emails.',
  'customers:write': 'Create customer portal sessions (one-time links into the hosted portal), and erase a customer’s personal data on request (owners only).',
  'coupons:read': 'Read coupons and promotion codes, with how often each was redeemed.',
  'coupons:write': 'Create, rename and delete coupons; create promotion codes and turn them on or off.',
  'benefits:read': 'Read products’ benefits (files, license keys) and which customers were granted them.',
  'benefits:write': 'Add, change and delete products’ benefits.',
  'tax:read': 'Read the tax settings and tax rates.',
  'tax:write': 'Turn tax collection on or off and create, rename and archive tax rates (owners only).',
  'license_keys:read': 'Read license keys, the keys themselves, and their activations.',
  'license_keys:write': 'Disable and enable license keys.',
  'files:read': 'Read uploaded files, who downloaded them, and the download settings.',
  'files:write': 'Upload and delete files, and change the download settings.',
} as const;

export type OAuthScope = keyof typeof OAUTH_SCOPES;

export const isOAuthScope = (scope: string): scope is OAuthScope => Object.hasOwn(OAUTH_SCOPES, scope);

const READ = new Set(['GET', 'HEAD']);

/** The scope a bearer route (its registered URL, e.g. `/api/catalog/products/:product`) needs. */
export function scopeForRoute(method: string, routeUrl: string): OAuthScope | null {
  const read = READ.has(method);
  if (routeUrl === '/api/users/me') return read ? 'identity:read' : null;
  if (routeUrl.startsWith('/api/catalog/')) return read ? 'catalog:read' : null;
  if (routeUrl === '/api/checkout/sessions' && method === 'POST') return 'checkout:write';
  if (routeUrl.startsWith('/api/checkout/sessions')) return read ? 'checkout:read' : null;
  // A refund moves money: for API keys only, as no scope names it.
  if (routeUrl === '/api/invoices/:id/refunds') return null;
  if (routeUrl.startsWith('/api/subscriptions') || routeUrl.startsWith('/api/invoices') || routeUrl === '/api/metrics/subscriptions' || routeUrl.startsWith('/api/test_clocks')) {
    return read ? 'subscriptions:read' : 'subscriptions:write';
  }
  if (routeUrl.startsWith('/api/automation/')) return read ? 'automation:read' : null;
  // An export reads what the list of its rows reads.
  if (routeUrl === '/api/exports/sales.csv') return read ? 'checkout:read' : null;
  if (routeUrl === '/api/exports/invoices.csv') return read ? 'subscriptions:read' : null;
  if (routeUrl === '/api/exports/customers.csv') return read ? 'customers:read' : null;
  // The tax report adds up invoices.
  if (routeUrl === '/api/reports/tax' || routeUrl === '/api/exports/tax.csv') return read ? 'subscriptions:read' : null;
  if (routeUrl.startsWith('/api/webhook-endpoints') || routeUrl.startsWith('/api/webhook-deliveries')) {
    return read ? 'webhooks:read' : 'webhooks:write';
  }
  if (routeUrl === '/api/tax/settings' || routeUrl === '/api/tax_rates' || routeUrl.startsWith('/api/tax_rates/')) return read ? 'tax:read' : 'tax:write';
  if (routeUrl === '/api/customers' || routeUrl.startsWith('/api/customers/')) return read ? 'customers:read' : 'customers:write';
  if (routeUrl === '/api/coupons' || routeUrl.startsWith('/api/coupons/') || routeUrl === '/api/promotion_codes' || routeUrl.startsWith('/api/promotion_codes/')) {
    return read ? 'coupons:read' : 'coupons:write';
  }
  if (routeUrl === '/api/license_keys' || routeUrl.startsWith('/api/license_keys/')) return read ? 'license_keys:read' : 'license_keys:write';
  if (routeUrl === '/api/benefits' || routeUrl.startsWith('/api/benefits/') || routeUrl === '/api/products/:product/benefits' || routeUrl === '/api/benefit_grants') {
    return read ? 'benefits:read' : 'benefits:write';
  }
  if (routeUrl === '/api/files' || routeUrl.startsWith('/api/files/') || routeUrl === '/api/file_settings') return read ? 'files:read' : 'files:write';
  return null;
}
