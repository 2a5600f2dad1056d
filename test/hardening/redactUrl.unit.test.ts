import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../api/redactUrl.ts';

describe('redactUrl (what a log line may show of a URL)', () => {
  it.each([
    ['/api/users/me?api_token=csk_key_x_y&page=2', '/api/users/me?api_token=[REDACTED]&page=2'],
    ['/hooks/catch/SeqKey123/TrigKey456?source=zapier', '/hooks/catch/[REDACTED]?source=zapier'],
    ['/api/checkout?offer=pro&card=4242424242424242', '/api/checkout?offer=pro&card=[REDACTED]'],
    ['/api/checkout?offer=4242-4242-4242-4242', '/api/checkout?offer=[REDACTED]'],
    ['/x?Card%5FNumber=1&password=hunter2&per_page=50', '/x?Card%5FNumber=[REDACTED]&password=[REDACTED]&per_page=50'],
    ['/x?bad=%E0%A4%A&token=abc', '/x?bad=%E0%A4%A&token=[REDACTED]'],
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
});
