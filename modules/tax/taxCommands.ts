import { randomBytes } from 'node:crypto';
import { EU_STANDARD_RATES, EU_STANDARD_RATES_AS_OF } from './domain/euVatRates.ts';
import { taxDecider, taxStream, type NewRate, type TaxRate, type TaxState } from './domain/taxLedger.ts';
import type { TaxBehavior } from '../../platform/domain/index.ts';
import { fold } from '../../platform/domain/index.ts';
import type { EventStore } from '../../platform/eventStore/index.ts';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';

export const newTaxRateId = () => `txr_${randomBytes(12).toString('hex')}`;

export async function loadTax(store: EventStore, organizationId: string): Promise<TaxState> {
  return fold(taxDecider, (await store.readStream(taxStream(organizationId))) as never[]);
}

export async function updateTaxSettings(ctx: CommandContext, input: { organizationId: string; enabled?: boolean; default_tax_behavior?: TaxBehavior }): Promise<TaxState> {
  const result = await handleCommand(ctx, taxStream(input.organizationId), taxDecider, {
    type: 'UpdateTaxSettings',
    ...(input.enabled !== undefined ? { enabled: input.enabled } : {}),
    ...(input.default_tax_behavior !== undefined ? { default_tax_behavior: input.default_tax_behavior } : {}),
    now: ctx.metadata.occurred_at,
  });
  return result.state;
}

export async function createTaxRate(ctx: CommandContext, input: { organizationId: string; rate: NewRate }): Promise<TaxRate> {
  const id = newTaxRateId();
  const result = await handleCommand(ctx, taxStream(input.organizationId), taxDecider, { type: 'CreateTaxRate', id, rate: input.rate, now: ctx.metadata.occurred_at });
  return result.state.rates.find((r) => r.id === id)!;
}

export async function updateTaxRate(
  ctx: CommandContext,
  input: { organizationId: string; id: string; display_name?: string; description?: string | null; active?: boolean },
): Promise<TaxRate> {
  const { organizationId, id, ...changes } = input;
  const result = await handleCommand(ctx, taxStream(organizationId), taxDecider, { type: 'UpdateTaxRate', id, ...changes, now: ctx.metadata.occurred_at });
  return result.state.rates.find((r) => r.id === id)!;
}

/** The EU-27 standard rates for every EU country without an active rate; the rates added. */
export async function loadStarterRates(ctx: CommandContext, input: { organizationId: string }): Promise<{ as_of: string; created: TaxRate[] }> {
  const rates = Object.entries(EU_STANDARD_RATES).map(([country, percentage]) => ({
    id: newTaxRateId(),
    rate: {
      display_name: 'VAT',
      description: `EU standard rate as of ${EU_STANDARD_RATES_AS_OF}: check it`,
      percentage,
      country,
      state: null,
      postal_code_prefix: null,
      jurisdiction: country,
      active: true,
    },
  }));
  const result = await handleCommand(ctx, taxStream(input.organizationId), taxDecider, { type: 'AddStarterRates', rates, now: ctx.metadata.occurred_at });
  const created = new Set(result.events.map((e) => (e.type === 'TaxRateCreated' ? e.data.rate.id : '')));
  return { as_of: EU_STANDARD_RATES_AS_OF, created: result.state.rates.filter((r) => created.has(r.id)) };
}
