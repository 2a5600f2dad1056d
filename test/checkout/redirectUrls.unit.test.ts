import { describe, expect, it } from 'vitest';
import { disallowedRedirects, normalizeOrigin, redirectOrigin } from '../../modules/checkout/domain/redirectUrls.ts';
import { scopeForRoute } from '../../modules/oauth/domain/oauthScopes.ts';

describe('redirect origins', () => {
  it('normalizes an allowed origin as the browser writes it, and refuses anything more than an origin', () => {
    expect(normalizeOrigin('HTTPS://Shop.Example:443/')).toBe('https://shop.example');
    expect(normalizeOrigin('http://localhost:3000')).toBe('http://localhost:3000');
    expect(normalizeOrigin('https://xn--bcher-kva.example')).toBe('https://xn--bcher-kva.example');
    expect(normalizeOrigin('https://bücher.example')).toBe('https://xn--bcher-kva.example');
    for (const bad of ['https://shop.example/cart', 'https://shop.example?', 'https://shop.example#x', 'https://u@shop.example', 'https://u:p@shop.example', 'https://*.shop.example', 'ftp://shop.example', 'javascript:alert(1)', 'data:text/plain,x', 'shop.example', 'null', '']) {
      expect(normalizeOrigin(bad), bad).toBeNull();
    }
  });

  it("takes a URL's origin as the browser will, and none when the session id would stand in it", () => {
    expect(redirectOrigin('https://shop.example/thanks?s={CHECKOUT_SESSION_ID}')).toBe('https://shop.example');
    expect(redirectOrigin('https://shop.example@evil.example/')).toBe('https://evil.example');
    expect(redirectOrigin('https://shop.example\\@evil.example/')).toBe('https://shop.example');
    expect(redirectOrigin('https://{CHECKOUT_SESSION_ID}.shop.example/')).toBeNull();
    expect(redirectOrigin('https://shop.example:{CHECKOUT_SESSION_ID}/')).toBeNull();
    expect(redirectOrigin('not a url')).toBeNull();
  });

  it('names each field whose origin is not allowed', () => {
    const allowed = new Set(['https://shop.example']);
    expect(disallowedRedirects({ success_url: 'https://shop.example/a', cancel_url: 'https://shop.example/b' }, allowed)).toEqual({});
    expect(Object.keys(disallowedRedirects({ success_url: 'https://shop.example/a', cancel_url: 'https://shop.example.evil.example/b' }, allowed))).toEqual(['cancel_url']);
    expect(Object.keys(disallowedRedirects({ success_url: 'http://shop.example/a' }, allowed))).toEqual(['success_url']);
  });

  it('an OAuth token creates sessions as the seller only with checkout:write', () => {
    expect(scopeForRoute('POST', '/api/checkout/sessions')).toBe('checkout:write');
    expect(scopeForRoute('GET', '/api/checkout/sessions')).toBe('checkout:read');
    expect(scopeForRoute('POST', '/api/checkout/sessions/:id/pay')).toBeNull();
  });
});
