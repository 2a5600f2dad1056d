import { describe, expect, it } from 'vitest';
import { roleForRoute } from '../../modules/identity/domain/bearerAccess.ts';
import { scopeForRoute } from '../../modules/oauth/domain/oauthScopes.ts';

describe('subscription routes for API keys and OAuth tokens', () => {
  it('need subscriptions:read to read and subscriptions:write to act, and a member', () => {
    for (const url of ['/api/subscriptions', '/api/subscriptions/:id', '/api/subscriptions/:id/history', '/api/subscriptions/:id/statement', '/api/invoices', '/api/invoices/:id', '/api/metrics/subscriptions']) {
      expect([url, scopeForRoute('GET', url), roleForRoute('GET', url)]).toEqual([url, 'subscriptions:read', 'member']);
    }
    for (const action of ['cancel', 'reactivate', 'pause', 'resume', 'change_plan']) {
      const url = `/api/subscriptions/:id/${action}`;
      expect([url, scopeForRoute('POST', url), roleForRoute('POST', url)]).toEqual([url, 'subscriptions:write', 'member']);
    }
  });
});
