import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ImportValidationError, runImport } from '../../app/import/importFile.ts';
import { loadTax } from '../../modules/tax/index.ts';
import { startTestServer, type TestServer } from '../helpers/testServer.ts';

/** The import file's `tax` section: settings and rates by place, idempotent. */
describe('the tax import section', () => {
  let server: TestServer;
  let organizationId: string;
  const run = (tax: unknown) => runImport({ command: server.cliContext(organizationId), organizationId, catchUp: server.settle }, { tax });
  const active = async () =>
    (await loadTax(server.services.store, organizationId)).rates.filter((r) => r.active).map((r) => [r.country, r.postal_code_prefix, r.percentage, r.display_name]);

  beforeAll(async () => {
    server = await startTestServer();
    organizationId = (await server.identity()).organizationId;
  });
  afterAll(() => server.close({ remove: true }));

  it('sets the settings and rates, changes nothing the second time, replaces a rate whose percentage changed', async () => {
    const file = {
      settings: { enabled: true, default_tax_behavior: 'inclusive' },
      rates: [
        { display_name: 'MwSt', percentage: 19, country: 'de' },
        { display_name: 'TVA', percentage: 13, country: 'FR', postal_code_prefix: '20' },
      ],
    };
    const first = await run(file);
    expect(first.sections.tax).toMatchObject({ settings: 'updated', rates: [{ outcome: 'created' }, { outcome: 'created' }], starter: 0 });
    expect((await loadTax(server.services.store, organizationId)).settings).toEqual({ enabled: true, default_tax_behavior: 'inclusive' });
    const head = await server.services.store.headPosition();
    expect((await run(file)).sections.tax).toMatchObject({ settings: 'unchanged', rates: [{ outcome: 'unchanged' }, { outcome: 'unchanged' }] });
    expect(await server.services.store.headPosition()).toBe(head);

    const changed = await run({ rates: [{ display_name: 'USt', percentage: 19, country: 'DE' }, { display_name: 'TVA', percentage: 10, country: 'FR', postal_code_prefix: '20' }], eu_standard_rates: true });
    expect(changed.sections.tax).toMatchObject({ rates: [{ outcome: 'updated' }, { outcome: 'replaced' }], starter: 26 });
    expect((await active()).filter(([c]) => c === 'DE' || c === 'FR')).toEqual([
      ['DE', null, 19, 'USt'],
      ['FR', '20', 10, 'TVA'],
      ['FR', null, 20, 'VAT'],
    ]);
    expect((await run({ rates: [{ display_name: 'TVA', percentage: 10, country: 'FR', postal_code_prefix: '20', active: false }] })).sections.tax).toMatchObject({ rates: [{ outcome: 'archived' }] });
    expect((await active()).filter(([c]) => c === 'FR')).toEqual([['FR', null, 20, 'VAT']]);
  });

  it('refuses a bad file with paths, and two rates for one place', async () => {
    const error = await run({ rates: [{ display_name: 'X', percentage: 19, country: 'DE' }, { display_name: 'Y', percentage: 7, country: 'DE' }, { display_name: 'Z', percentage: 101, country: 'Germany' }] }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ImportValidationError);
    expect((error as ImportValidationError).issues.map((i) => i.path).sort()).toEqual(['tax.rates[2].country', 'tax.rates[2].percentage']);
    const twins = await run({ rates: [{ display_name: 'X', percentage: 19, country: 'AT' }, { display_name: 'Y', percentage: 7, country: 'AT' }] }).catch((e: unknown) => e);
    expect((twins as ImportValidationError).issues.map((i) => i.path)).toEqual(['tax.rates[1].country']);
    const decimals = await run({ rates: [{ display_name: 'X', percentage: 19.123456, country: 'AT' }] }).catch((e: unknown) => e);
    expect((decimals as ImportValidationError).issues).toEqual([{ path: 'tax.rates[0].percentage', message: expect.stringContaining('four decimals') }]);
  });
});
