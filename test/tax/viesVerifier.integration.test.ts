import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseTaxId } from '../../modules/tax/domain/taxIds.ts';
import { resolveCustomerTaxDetails, taxIdVerifierFor, viesVerifier } from '../../modules/tax/index.ts';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand } from '../../platform/es/index.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';

/**
 * The VIES adapter against a loopback server answering as VIES's REST API documents it
 * (GET /ms/{country}/vat/{number} → {isValid, userError, …}), through the guarded client.
 */
describe('the VIES tax id verifier', () => {
  let server: Server;
  let baseUrl: string;
  const asked: string[] = [];
  /** What the server does for a number: an answer body, a status, or hang. */
  let answer: (country: string, number: string) => { status: number; body: unknown } | 'hang' = () => ({ status: 500, body: {} });
  const cleanup: Array<() => Promise<void> | void> = [];

  beforeAll(async () => {
    server = createServer((request, response) => {
      asked.push(`${request.method} ${request.url}`);
      const match = /^\/vies\/rest-api\/ms\/([A-Z]{2})\/vat\/([A-Z0-9]+)$/.exec(request.url ?? '');
      const result = match ? answer(match[1]!, match[2]!) : { status: 404, body: {} };
      if (result === 'hang') return;
      response.writeHead(result.status, { 'content-type': 'application/json' }).end(JSON.stringify(result.body));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/vies/rest-api`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
    asked.length = 0;
  });

  const vies = (body: Record<string, unknown>) => () => ({ status: 200, body: { requestDate: '2026-11-27T10:00:00.000Z', name: '---', address: '---', requestIdentifier: '', vatNumber: '', ...body } });
  const verifier = (timeoutMs = 2_000) => viesVerifier({ baseUrl, timeoutMs, allowHosts: ['127.0.0.1'] });
  const id = (raw: string, country: string) => parseTaxId(raw, country)!;

  it('verified when VIES says valid; invalid when it says INVALID; asks with EL for Greece', async () => {
    answer = vies({ isValid: true, userError: 'VALID', name: 'ACME SARL' });
    expect(await verifier().verify(id('FR40303265045', 'FR'))).toBe('verified');
    expect(await verifier().verify(id('EL123456789', 'GR'))).toBe('verified');
    expect(asked).toEqual(['GET /vies/rest-api/ms/FR/vat/40303265045', 'GET /vies/rest-api/ms/EL/vat/123456789']);
    answer = vies({ isValid: false, userError: 'INVALID' });
    expect(await verifier().verify(id('DE123456789', 'DE'))).toBe('invalid');
  });

  it('unavailable when a member state is down, VIES errs, or does not answer in time; never throws', async () => {
    answer = vies({ isValid: false, userError: 'MS_UNAVAILABLE' });
    expect(await verifier().verify(id('DE123456789', 'DE'))).toBe('unavailable');
    answer = () => ({ status: 500, body: { actionSucceed: false, errorWrappers: [{ error: 'SERVICE_UNAVAILABLE' }] } });
    expect(await verifier().verify(id('DE123456789', 'DE'))).toBe('unavailable');
    answer = () => 'hang';
    expect(await verifier(200).verify(id('DE123456789', 'DE'))).toBe('unavailable');
  });

  it('is refused the loopback address unless allowed (the guarded client)', async () => {
    answer = vies({ isValid: true, userError: 'VALID' });
    const unguarded = viesVerifier({ baseUrl, timeoutMs: 2_000, allowHosts: [] });
    expect(await unguarded.verify(id('DE123456789', 'DE'))).toBe('unavailable');
    expect(asked).toEqual([]);
  });

  it('leaves non-EU numbers unverified without asking', async () => {
    expect(await verifier().verify(id('GB123456789', 'GB'))).toBe('unverified');
    expect(asked).toEqual([]);
  });

  it('is chosen by TAX_ID_VERIFIER=vies, and resolveCustomerTaxDetails records its answer or refuses an invalid number', async () => {
    const store: EventStore = openTempStores(cleanup, 'tax-vies-').store;
    const ctx = { store, metadata: { correlation_id: 't', actor: { type: 'cli' as const }, organization_id: 'org_v', occurred_at: 1 } };
    await handleCommand(ctx, organizationStream('org_v'), organizationDecider, { type: 'CreateOrganization', id: 'org_v', name: 'S', timezone: 'UTC', now: 1 });
    await handleCommand(ctx, organizationStream('org_v'), organizationDecider, {
      type: 'UpdateOrganization',
      name: 'S',
      timezone: 'UTC',
      address: { line1: 'x', line2: null, postal_code: null, city: 'Berlin', region: null, country: 'DE' },
      now: 2,
    });
    const config = loadConfig({ DATA_DIR: '/nonexistent', TAX_ID_VERIFIER: 'vies', VIES_URL: baseUrl, VIES_ALLOW_HOSTS: '127.0.0.1', VIES_TIMEOUT_MS: '300' });
    expect(taxIdVerifierFor(config).name).toBe('vies');
    expect(taxIdVerifierFor(loadConfig({ DATA_DIR: '/nonexistent' })).name).toBe('format');
    const services = { store, config };
    answer = vies({ isValid: true, userError: 'VALID' });
    expect(await resolveCustomerTaxDetails(services, { organizationId: 'org_v', country: 'FR', tax_id: 'FR40303265045' })).toMatchObject({ tax_id: { verification: 'verified' }, tax_exempt: 'reverse' });
    answer = () => 'hang';
    expect(await resolveCustomerTaxDetails(services, { organizationId: 'org_v', country: 'FR', tax_id: 'FR40303265045' })).toMatchObject({ tax_id: { verification: 'unavailable' }, tax_exempt: 'reverse' });
    answer = vies({ isValid: false, userError: 'INVALID' });
    await expect(resolveCustomerTaxDetails(services, { organizationId: 'org_v', country: 'FR', tax_id: 'FR40303265045' })).rejects.toMatchObject({ code: 'invalid_tax_id', fields: { tax_id: [expect.any(String)] } });
  });
});
