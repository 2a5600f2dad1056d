import { describe, expect, it } from 'vitest';
import { redactUrl } from '../../api/app.ts';

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

  it('keeps long numbers that are not card numbers (Luhn check fails)', () => {
    expect(redactUrl('/api/orders?ref=1234567890123456')).toBe('/api/orders?ref=1234567890123456');
    expect(redactUrl('/api/catalog/products?page=3&per_page=250')).toBe('/api/catalog/products?page=3&per_page=250');
  });
});
