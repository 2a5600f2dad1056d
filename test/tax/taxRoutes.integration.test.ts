import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey, createUser } from '../../modules/identity/identityCommands.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The tax routes on the bearer API: settings, rates, the starter table; owners write, each organization sees its own. */
describe('the tax routes', () => {
  let server: TestServer;
  let owner: { organizationId: string; token: string };
  let other: { organizationId: string; token: string };
  let memberToken: string;

  const call = async (token: string, method: string, path: string, body?: unknown) => {
    const response = await server.fetch(path, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> & { data?: Array<Record<string, unknown>> } };
  };

  beforeAll(async () => {
    server = await startTestServer();
    owner = await server.identity('Seller');
    other = await server.identity('Other');
    const member = await createUser(server.cliContext(owner.organizationId), { email: 'member@example.com', organizationId: owner.organizationId, role: 'member' });
    memberToken = (await createApiKey(server.cliContext(owner.organizationId), { userId: member.id, organizationId: owner.organizationId })).token;
  });
  afterAll(() => server.close({ remove: true }));

  it('sets the settings and shows the origin and the starter table\'s date', async () => {
    expect(await call(owner.token, 'GET', '/api/tax/settings')).toEqual({
      status: 200,
      body: { enabled: false, default_tax_behavior: 'exclusive', origin: { country: null, vat_number: null }, starter_rates_as_of: '2025-08-01' },
    });
    const set = await call(owner.token, 'POST', '/api/tax/settings', { enabled: true, default_tax_behavior: 'inclusive' });
    expect(set).toMatchObject({ status: 200, body: { enabled: true, default_tax_behavior: 'inclusive' } });
    expect((await call(owner.token, 'POST', '/api/tax/settings', { default_tax_behavior: 'gross' })).status).toBe(422);
    expect((await call(owner.token, 'POST', '/api/tax/settings', { colour: 'red' })).status).toBe(422);
    expect((await call(other.token, 'GET', '/api/tax/settings')).body).toMatchObject({ enabled: false });
  });

  it('creates, lists, renames and archives rates; refuses a twin and a changed percentage', async () => {
    const created = await call(owner.token, 'POST', '/api/tax_rates', { display_name: 'MwSt', percentage: 19, country: 'de' });
    expect(created).toMatchObject({
      status: 201,
      body: { object: 'tax_rate', display_name: 'MwSt', percentage: 19, country: 'DE', state: null, postal_code_prefix: null, active: true, tax_type: 'vat', description: null },
    });
    const id = created.body.id as string;
    expect(id).toMatch(/^txr_[0-9a-f]{24}$/);
    const twin = await call(owner.token, 'POST', '/api/tax_rates', { display_name: 'MwSt', percentage: 7, country: 'DE' });
    expect(twin).toMatchObject({ status: 409, body: { code: 'tax_rate_exists' } });
    expect(await call(owner.token, 'POST', '/api/tax_rates', { display_name: 'VAT', percentage: 19.12345, country: 'AT' })).toMatchObject({
      status: 422,
      body: { code: 'invalid_percentage', errors: { percentage: [expect.any(String)] } },
    });
    expect((await call(owner.token, 'POST', `/api/tax_rates/${id}`, { percentage: 7 })).status).toBe(422);
    expect(await call(owner.token, 'POST', `/api/tax_rates/${id}`, { display_name: 'USt', active: false })).toMatchObject({ status: 200, body: { id, display_name: 'USt', active: false, percentage: 19 } });
    expect((await call(owner.token, 'POST', '/api/tax_rates', { display_name: 'MwSt', percentage: 7, country: 'DE' })).status).toBe(201);
    expect((await call(owner.token, 'GET', `/api/tax_rates/${id}`)).body).toMatchObject({ id, active: false });
    expect((await call(owner.token, 'GET', '/api/tax_rates?active=false')).body.data?.map((r) => r.id)).toEqual([id]);
    expect((await call(owner.token, 'GET', '/api/tax_rates')).body.data).toHaveLength(2);
    // Another organization's rate is not found.
    expect((await call(other.token, 'GET', `/api/tax_rates/${id}`)).status).toBe(404);
    expect((await call(other.token, 'POST', `/api/tax_rates/${id}`, { active: true })).status).toBe(404);
    expect((await call(other.token, 'GET', '/api/tax_rates')).body.data).toEqual([]);
    expect((await call(owner.token, 'GET', '/api/tax_rates/nope')).status).toBe(422);
  });

  it('loads the EU standard rates once, skipping countries with a rate', async () => {
    const first = await call(owner.token, 'POST', '/api/tax_rates/starter');
    expect(first.status).toBe(200);
    expect(first.body.as_of).toBe('2025-08-01');
    const countries = (first.body.created as Array<{ country: string }>).map((r) => r.country);
    expect(countries).toHaveLength(26);
    expect(countries).not.toContain('DE');
    expect(countries).toContain('GR');
    expect((await call(owner.token, 'POST', '/api/tax_rates/starter')).body.created).toEqual([]);
  });

  it('lets a member read but not write', async () => {
    expect((await call(memberToken, 'GET', '/api/tax_rates')).status).toBe(200);
    expect((await call(memberToken, 'GET', '/api/tax/settings')).status).toBe(200);
    expect((await call(memberToken, 'POST', '/api/tax/settings', { enabled: false })).status).toBe(403);
    expect((await call(memberToken, 'POST', '/api/tax_rates', { display_name: 'VAT', percentage: 20, country: 'GB' })).status).toBe(403);
    expect((await call(memberToken, 'POST', '/api/tax_rates/starter')).status).toBe(403);
  });
});
