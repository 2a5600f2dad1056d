import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

type ErrorBody = { message: string; code: string; errors: Record<string, string[]> };

/** 422 messages as a client reads them: Laravel's wording, and the limit the client can act on. */
describe('validation messages', () => {
  let server: TestServer;
  let token: string;
  beforeAll(async () => {
    server = await startTestServer();
    ({ token } = await server.identity());
  });
  afterAll(() => server.close({ remove: true }));

  const body = async (response: Response) => {
    expect(response.status).toBe(422);
    return (await response.json()) as ErrorBody;
  };

  it('words a pattern failure as Laravel does, without naming the rule', async () => {
    const answer = await body(await server.fetch('/api/catalog/products/foo.bar', { token }));
    expect(answer.message).toBe('The product field format is invalid.');
    expect(answer.errors).toEqual({ product: ['The product field format is invalid.'] });
  });

  it.each([
    ['per_page', '/api/catalog/products?per_page=100000000000000000000', 'The per_page field must not be greater than 500.'],
    ['per_page (negative)', '/api/catalog/products?per_page=-100000000000000000000', 'The per_page field must be at least 1.'],
    ['at', '/api/checkout/sessions/cs_x/history?at=99999999999999999999', 'The at field must not be greater than 253402300799.'],
  ])('an oversized %s reports the field’s own limit, alone', async (_name, path, message) => {
    const answer = await body(await server.fetch(path, { token }));
    expect(answer.message).toBe(message);
    expect(Object.values(answer.errors).flat()).toEqual([message]);
  });

  it.each([
    ['/api/catalog/products?per_page=1e2', 'per_page'],
    ['/api/catalog/products?per_page=0x10', 'per_page'],
    ['/api/catalog/products?page=01', 'page'],
    ['/api/catalog/products?per_page=', 'per_page'],
    ['/api/automation/workflows/0x1', 'workflow_id'],
    ['/api/automation/workflows/1e0', 'workflow_id'],
    ['/api/automation/triggers/007/test', 'trigger_id'],
    ['/api/checkout/sessions/cs_x/history?at=1.5e9', 'at'],
  ])('%s: an integer is written in decimal digits, one way only', async (path, field) => {
    const answer = await body(await server.fetch(path, { token }));
    expect(answer.errors).toEqual({ [field]: [`The ${field} field must be an integer.`] });
  });

  it.each([
    [1e20, 'The card.exp_year field must not be greater than 2100.'],
    [-1e20, 'The card.exp_year field must be at least 2000.'],
    [2030.5, 'The card.exp_year field must be an integer.'],
  ])('exp_year %s on the pay route reports the field’s own rule', async (expYear, message) => {
    const response = await server.fetch('/api/checkout/sessions/cs_x/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242424242424242', exp_month: 12, exp_year: expYear, cvc: '123' } }),
    });
    const answer = await body(response);
    expect(answer.errors).toEqual({ 'card.exp_year': [message] });
  });

  it('exp_month likewise', async () => {
    const response = await server.fetch('/api/checkout/sessions/cs_x/pay', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ card: { number: '4242424242424242', exp_month: 1e20, exp_year: 2030, cvc: '123' } }),
    });
    expect((await body(response)).errors).toEqual({ 'card.exp_month': ['The card.exp_month field must not be greater than 12.'] });
  });
});
