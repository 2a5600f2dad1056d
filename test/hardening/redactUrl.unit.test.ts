import { describe, expect, it } from 'vitest';
import { redactApiKeys, redactUrl } from '../../platform/http/redactUrl.ts';

describe('redactUrl (what a log line may show of a URL)', () => {
  it.each([
    ['/api/users/me?api_token=csk_key_x_y&page=2', '/api/users/me?api_token=[REDACTED]&page=2'],
    ['/hooks/catch/SeqKey123/TrigKey456?source=zapier', '/hooks/catch/[REDACTED]?source=zapier'],
    ['/api/checkout?offer=pro&card=4242424242424242', '/api/checkout?offer=pro&card=[REDACTED]'],
    ['/api/checkout?offer=4242-4242-4242-4242', '/api/checkout?offer=[REDACTED]'],
    ['/x?Card%5FNumber=1&password=hunter2&per_page=50', '/x?Card%5FNumber=[REDACTED]&password=[REDACTED]&per_page=50'],
    ['/x?bad=%E0%A4%A&token=abc', '/x?bad=%E0%A4%A&token=[REDACTED]'],
    // OAuth: a code on a callback, a verifier, a refresh token or client secret put in a query.
    ['/callback?code=SplxlOBeZQQYbYS6WxSbIA&state=xyz', '/callback?code=[REDACTED]&state=xyz'],
    ['/oauth/token?code_verifier=dBjftJeZ4CVP&refresh_token=tGzv3JOkF0XG&client_secret=cs_abc', '/oauth/token?code_verifier=[REDACTED]&refresh_token=[REDACTED]&client_secret=[REDACTED]'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  // Every spelling a router or proxy may take for the catch route, routed (200) or not (404): the keys are in it either way.
  it.each([
    ['/%68ooks/catch/SeqKey123/TrigKey456'],
    ['/hooks/%63atch/SeqKey123/TrigKey456?x=1'],
    ['/%2568ooks/catch/SeqKey123/TrigKey456'],
    ['//hooks/catch/SeqKey123/TrigKey456'],
    ['/hooks//catch/SeqKey123/TrigKey456'],
    ['/hooks/catch//SeqKey123/TrigKey456'],
    ['/./hooks/./catch/SeqKey123/TrigKey456'],
    ['/HOOKS/Catch/SeqKey123/TrigKey456'],
    ['/hooks\\catch\\SeqKey123\\TrigKey456'],
    ['/hooks%2Fcatch%2FSeqKey123%2FTrigKey456'],
    ['http://shop.example.com/hooks/catch/SeqKey123/TrigKey456'],
    ['/prefix/hooks/catch/SeqKey123/TrigKey456'],
    ['/hooks/catch/SeqKey123/TrigKey456#frag'],
  ])('%s hides the catch keys', (url) => {
    const redacted = redactUrl(url);
    expect(redacted).toMatch(/^\/hooks\/catch\/\[REDACTED\]/);
    expect(redacted).not.toMatch(/SeqKey123|TrigKey456/);
  });

  it('keeps the query of a redacted catch path, itself redacted', () => {
    expect(redactUrl('//hooks/catch/a/b?utm=x&token=t')).toBe('/hooks/catch/[REDACTED]?utm=x&token=[REDACTED]');
  });

  it('leaves paths that cannot be a catch URL alone', () => {
    for (const url of ['/api/catalog/products/hooks', '/hooks/catch', '/api/hooks/catchall/x', '/%zz/hooks', '/docs']) expect(redactUrl(url)).toBe(url);
  });

  it('keeps long numbers that are not card numbers (Luhn check fails)', () => {
    expect(redactUrl('/api/orders?ref=1234567890123456')).toBe('/api/orders?ref=1234567890123456');
    expect(redactUrl('/api/catalog/products?page=3&per_page=250')).toBe('/api/catalog/products?page=3&per_page=250');
  });

  const key = 'csk_key_AbCdEfGhIjKlMnOp_0123456789abcdefghijABCDEFGHIJKL';
  it.each([
    [`/api/users/me?apikey=${key}`, '/api/users/me?apikey=[REDACTED]'],
    ['/x?api-token=t&apiToken=t&auth=t&bearer=t&authorization=t', '/x?api-token=[REDACTED]&apiToken=[REDACTED]&auth=[REDACTED]&bearer=[REDACTED]&authorization=[REDACTED]'],
    ['/x?api_token[]=t&api_token%5B0%5D=t&auth[token]=t&page=2', '/x?api_token[]=[REDACTED]&api_token%5B0%5D=[REDACTED]&auth[token]=[REDACTED]&page=2'],
    [`/api/users/me/${key}`, '/api/users/me/csk_key_AbCdEfGhIjKlMnOp_[REDACTED]'],
    [`/x?q=${key}&page=2`, '/x?q=csk_key_AbCdEfGhIjKlMnOp_[REDACTED]&page=2'],
    [`/x?${key}`, '/x?csk_key_AbCdEfGhIjKlMnOp_[REDACTED]'],
    ['/x?q=csk%5Fkey%5FAbCdEfGhIjKlMnOp%5F0123456789', '/x?q=csk_key_AbCdEfGhIjKlMnOp_[REDACTED]'],
    ['/x/csk_key_short', '/x/csk_[REDACTED]'],
  ])('%s → %s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('finds a key by its shape in any text, and a second pass changes nothing', () => {
    const line = `{"msg":"Route GET:/api/users/me/${key} not found","h":"Bearer ${key}"}`;
    const once = redactApiKeys(line);
    expect(once).not.toContain('0123456789abcdefghij');
    expect(redactApiKeys(once)).toBe(once);
    expect(redactApiKeys('no keys here')).toBe('no keys here');
  });
});
