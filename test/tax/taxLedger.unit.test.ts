import { describe, expect, it } from 'vitest';
import { fold } from '../../platform/domain/index.ts';
import { asArray } from '../../platform/domain/index.ts';
import { taxDecider, type NewRate, type TaxCommand, type TaxEvent, type TaxState } from '../../modules/tax/domain/taxLedger.ts';

const newRate = (country: string, percentage: number, more: Partial<NewRate> = {}): NewRate => ({
  display_name: 'VAT',
  description: null,
  percentage,
  country,
  state: null,
  postal_code_prefix: null,
  jurisdiction: null,
  active: true,
  ...more,
});

/** Runs the commands in order, as the stream would record them. */
function run(commands: TaxCommand[]): { events: TaxEvent[]; state: TaxState } {
  const events: TaxEvent[] = [];
  for (const command of commands) events.push(...asArray(taxDecider.decide(command, fold(taxDecider, events))));
  return { events, state: fold(taxDecider, events) };
}

const errorCode = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return (e as { code?: string }).code;
  }
  return null;
};

describe('the tax ledger: settings and rates of one organization', () => {
  it('starts off, exclusive; records a settings change once', () => {
    const { events, state } = run([
      { type: 'UpdateTaxSettings', enabled: true, now: 1 },
      { type: 'UpdateTaxSettings', enabled: true, now: 2 },
      { type: 'UpdateTaxSettings', default_tax_behavior: 'inclusive', now: 3 },
    ]);
    expect(events.map((e) => e.type)).toEqual(['TaxSettingsUpdated', 'TaxSettingsUpdated']);
    expect(state.settings).toEqual({ enabled: true, default_tax_behavior: 'inclusive' });
  });

  it('refuses a second active rate for the same place, but not for another region or postal prefix', () => {
    const { state } = run([
      { type: 'CreateTaxRate', id: 'txr_1', rate: newRate('FR', 20), now: 1 },
      { type: 'CreateTaxRate', id: 'txr_2', rate: newRate('FR', 13, { postal_code_prefix: '20' }), now: 1 },
      { type: 'CreateTaxRate', id: 'txr_3', rate: newRate('FR', 8.5, { state: '971' }), now: 1 },
    ]);
    expect(state.rates.map((r) => r.id)).toEqual(['txr_1', 'txr_2', 'txr_3']);
    expect(errorCode(() => taxDecider.decide({ type: 'CreateTaxRate', id: 'txr_4', rate: newRate('FR', 5.5), now: 2 }, state))).toBe('tax_rate_exists');
    // Archived, then a new one for the same place is fine, and the archived one cannot come back beside it.
    const after = run([
      { type: 'CreateTaxRate', id: 'txr_1', rate: newRate('FR', 20), now: 1 },
      { type: 'UpdateTaxRate', id: 'txr_1', active: false, now: 2 },
      { type: 'CreateTaxRate', id: 'txr_5', rate: newRate('FR', 21), now: 3 },
    ]).state;
    expect(errorCode(() => taxDecider.decide({ type: 'UpdateTaxRate', id: 'txr_1', active: true, now: 4 }, after))).toBe('tax_rate_exists');
  });

  it('checks a new rate: percentage 0–100 with four decimals at most, ISO country', () => {
    const none = fold(taxDecider, []);
    const code = (rate: NewRate) => errorCode(() => taxDecider.decide({ type: 'CreateTaxRate', id: 'txr_x', rate, now: 1 }, none));
    expect(code(newRate('DE', 19.12345))).toBe('invalid_percentage');
    expect(code(newRate('DE', 101))).toBe('invalid_percentage');
    expect(code(newRate('DE', -1))).toBe('invalid_percentage');
    expect(code(newRate('de', 19))).toBe('invalid_country');
    expect(code(newRate('DE', 19, { display_name: ' ' }))).toBe('invalid_display_name');
    expect(code(newRate('DE', 19, { postal_code_prefix: '1 2' }))).toBe('invalid_postal_code_prefix');
    expect(code(newRate('DE', 19.1234))).toBeNull();
  });

  it('updates a rate\'s name, description and active flag; never its percentage', () => {
    const { events, state } = run([
      { type: 'CreateTaxRate', id: 'txr_1', rate: newRate('DE', 19), now: 1 },
      { type: 'UpdateTaxRate', id: 'txr_1', display_name: 'MwSt', description: 'Germany', now: 2 },
      { type: 'UpdateTaxRate', id: 'txr_1', display_name: 'MwSt', now: 3 },
    ]);
    expect(events).toHaveLength(2);
    expect(state.rates[0]).toMatchObject({ display_name: 'MwSt', description: 'Germany', percentage: 19, active: true });
    expect(errorCode(() => taxDecider.decide({ type: 'UpdateTaxRate', id: 'txr_nope', active: false, now: 4 }, state))).toBe('not_found');
  });

  it('adds starter rates only for countries without an active country-wide rate', () => {
    const { state } = run([
      { type: 'CreateTaxRate', id: 'txr_de', rate: newRate('DE', 7), now: 1 },
      { type: 'CreateTaxRate', id: 'txr_fr_corse', rate: newRate('FR', 13, { postal_code_prefix: '20' }), now: 1 },
      { type: 'AddStarterRates', rates: [{ id: 'txr_a', rate: newRate('DE', 19) }, { id: 'txr_b', rate: newRate('FR', 20) }], now: 2 },
      { type: 'AddStarterRates', rates: [{ id: 'txr_c', rate: newRate('DE', 19) }, { id: 'txr_d', rate: newRate('FR', 20) }], now: 3 },
    ]);
    expect(state.rates.map((r) => [r.id, r.country, r.percentage])).toEqual([
      ['txr_de', 'DE', 7],
      ['txr_fr_corse', 'FR', 13],
      ['txr_b', 'FR', 20],
    ]);
  });
});
