import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { calculateTax, createTaxRate, loadStarterRates, resolveCustomerTaxDetails, taxSettingsFor, updateTaxRate, updateTaxSettings } from '../../modules/tax/index.ts';
import { organizationDecider, organizationStream } from '../../modules/identity/index.ts';
import { DomainError } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { loadConfig } from '../../platform/runtime/config.ts';
import { openTempStores } from '../helpers/sqliteStores.ts';

/** What checkout and subscriptions call, on a real SQLite event store. */
describe('the tax module\'s exports', () => {
  const cleanup: Array<() => Promise<void> | void> = [];
  let store: EventStore;
  const config = loadConfig({ DATA_DIR: '/nonexistent', LOG_LEVEL: 'silent' });
  const ctx = (organizationId: string): CommandContext => ({ store, metadata: { correlation_id: 'test', actor: { type: 'cli' }, organization_id: organizationId, occurred_at: 1_700_000_000 } });
  const seller = async (id: string, country: string | null) => {
    await handleCommand(ctx(id), organizationStream(id), organizationDecider, { type: 'CreateOrganization', id, name: 'Seller', timezone: 'UTC', now: 1 });
    if (country) {
      await handleCommand(ctx(id), organizationStream(id), organizationDecider, {
        type: 'UpdateOrganization',
        name: 'Seller',
        timezone: 'UTC',
        address: { line1: 'Street 1', line2: null, postal_code: '10115', city: 'City', region: null, country },
        vat_number: `${country}123456789`,
        now: 2,
      });
    }
  };
  const refusal = async (p: Promise<unknown>) => {
    const error = await p.then(
      () => null,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(DomainError);
    const { kind, code, fields } = error as DomainError;
    return { kind, code, fields: Object.keys(fields ?? {}) };
  };

  beforeEach(() => {
    store = openTempStores(cleanup, 'tax-').store;
  });
  afterEach(async () => {
    for (const step of cleanup.reverse()) await step();
    cleanup.length = 0;
  });

  it('taxSettingsFor: off by default; then the origin, countries with rates and where postal codes matter', async () => {
    await seller('org_a', 'DE');
    expect(await taxSettingsFor(store, 'org_a')).toEqual({ enabled: false, default_tax_behavior: 'exclusive', origin_country: 'DE', countries: [], postal_code_countries: [] });
    await updateTaxSettings(ctx('org_a'), { organizationId: 'org_a', enabled: true, default_tax_behavior: 'inclusive' });
    await loadStarterRates(ctx('org_a'), { organizationId: 'org_a' });
    await createTaxRate(ctx('org_a'), { organizationId: 'org_a', rate: { display_name: 'TVA Corse', description: null, percentage: 13, country: 'FR', state: null, postal_code_prefix: '20', jurisdiction: null, active: true } });
    const settings = await taxSettingsFor(store, 'org_a');
    expect(settings).toMatchObject({ enabled: true, default_tax_behavior: 'inclusive', origin_country: 'DE', postal_code_countries: ['FR'] });
    expect(settings.countries).toHaveLength(27);
    // Another organization sees none of it.
    await seller('org_b', null);
    expect(await taxSettingsFor(store, 'org_b')).toEqual({ enabled: false, default_tax_behavior: 'exclusive', origin_country: null, countries: [], postal_code_countries: [] });
  });

  it('resolveCustomerTaxDetails: normalises, refuses bad input by field, and marks EU cross-border B2B as reverse', async () => {
    await seller('org_a', 'DE');
    await updateTaxSettings(ctx('org_a'), { organizationId: 'org_a', enabled: true });
    await createTaxRate(ctx('org_a'), { organizationId: 'org_a', rate: { display_name: 'TVA Corse', description: null, percentage: 13, country: 'FR', state: null, postal_code_prefix: '20', jurisdiction: null, active: true } });
    const services = { store, config };
    expect(await resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'fr', postal_code: '20000', business_name: ' Acme SARL ', tax_id: 'fr 40 303 265 045' })).toEqual({
      address: { country: 'FR', postal_code: '20000', state: null },
      business_name: 'Acme SARL',
      tax_id: { type: 'eu_vat', value: 'FR40303265045', country: 'FR', verification: 'unverified' },
      tax_exempt: 'reverse',
    });
    expect(await resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'DE', tax_id: 'DE123456789' })).toMatchObject({ tax_exempt: 'none', tax_id: { value: 'DE123456789' } });
    expect(await resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'US' })).toEqual({ address: { country: 'US', postal_code: null, state: null }, business_name: null, tax_id: null, tax_exempt: 'none' });
    expect(await refusal(resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'ZZ' }))).toEqual({ kind: 'invalid', code: 'invalid_country', fields: ['country'] });
    expect(await refusal(resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'Germany' }))).toEqual({ kind: 'invalid', code: 'invalid_country', fields: ['country'] });
    expect(await refusal(resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'FR', postal_code: ' ' }))).toEqual({ kind: 'invalid', code: 'postal_code_required', fields: ['postal_code'] });
    expect(await refusal(resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'FR', postal_code: '75001', tax_id: 'FR123' }))).toEqual({ kind: 'invalid', code: 'invalid_tax_id', fields: ['tax_id'] });
    expect(await refusal(resolveCustomerTaxDetails(services, { organizationId: 'org_a', country: 'US', tax_id: '12-3456789' }))).toEqual({ kind: 'invalid', code: 'invalid_tax_id', fields: ['tax_id'] });
  });

  it('calculateTax: null while off or without an address; then the EU rules with the rate used', async () => {
    await seller('org_a', 'DE');
    const customer = (country: string, taxId: string | null = null) => resolveCustomerTaxDetails({ store, config }, { organizationId: 'org_a', country, tax_id: taxId });
    const tax = async (c: Awaited<ReturnType<typeof customer>> | null, taxBehavior: 'inclusive' | 'exclusive' | 'unspecified' = 'unspecified') =>
      calculateTax({ store }, { organizationId: 'org_a', taxBehavior, customer: c, now: 1_700_000_000 });
    await loadStarterRates(ctx('org_a'), { organizationId: 'org_a' });
    expect(await tax(await customer('FR'))).toBeNull();
    await updateTaxSettings(ctx('org_a'), { organizationId: 'org_a', enabled: true });
    expect(await tax(null)).toBeNull();
    const fr = await tax(await customer('FR'), 'inclusive');
    expect(fr).toMatchObject({ percentage: 20, behavior: 'inclusive', taxability_reason: 'standard_rated', calculated_by: 'rate_table', tax_rate: { country: 'FR', percentage: 20 } });
    expect(fr?.tax_rate?.id).toMatch(/^txr_[0-9a-f]{24}$/);
    expect(await tax(await customer('FR', 'FR40303265045'))).toMatchObject({ percentage: 0, taxability_reason: 'reverse_charge', tax_rate: null });
    expect(await tax(await customer('DE', 'DE123456789'))).toMatchObject({ percentage: 19, taxability_reason: 'standard_rated' });
    expect(await tax(await customer('US'))).toMatchObject({ percentage: 0, taxability_reason: 'not_collecting' });
    // Archive a rate: that country is then not collected in.
    await updateTaxRate(ctx('org_a'), { organizationId: 'org_a', id: fr!.tax_rate!.id, active: false });
    expect(await tax(await customer('FR'))).toMatchObject({ percentage: 0, taxability_reason: 'not_collecting' });
    // Idempotent starter load: only France, now without an active rate, gets one again.
    expect((await loadStarterRates(ctx('org_a'), { organizationId: 'org_a' })).created.map((r) => r.country)).toEqual(['FR']);
    expect((await loadStarterRates(ctx('org_a'), { organizationId: 'org_a' })).created).toEqual([]);
  });
});
