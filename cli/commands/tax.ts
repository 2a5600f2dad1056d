import { EU_STANDARD_RATES_AS_OF, loadStarterRates, loadTax, type TaxRate, taxSettingsFor, updateTaxSettings } from '../../modules/tax/index.ts';
import { CliUsageError, table, type CliCommand } from '../command.ts';
import { organizationOption } from './organizationOption.ts';

type SettingsResult = Awaited<ReturnType<typeof taxSettingsFor>>;

const place = (r: TaxRate) => [r.country, r.state, r.postal_code_prefix ? `${r.postal_code_prefix}…` : null].filter(Boolean).join(' / ');

const rateLines = (rates: TaxRate[]) =>
  table(['id', 'place', 'rate', 'name', 'status'], rates.map((r) => [r.id, place(r), `${r.percentage}%`, r.display_name, r.active ? 'active' : 'archived']));

export const taxSettingsCommand: CliCommand = {
  path: ['tax', 'settings'],
  usage: 'tax settings [--org ORG] [--enable|--disable] [--behavior inclusive|exclusive]',
  description: 'Show the tax settings, or turn tax collection on or off and set the default tax behaviour of plans that do not say.',
  options: { org: 'string', enable: 'boolean', disable: 'boolean', behavior: 'string' },
  async run(ctx) {
    const { options, services, commandContext } = ctx;
    if (options.enable === true && options.disable === true) throw new CliUsageError('--enable and --disable exclude each other');
    const behavior = options.behavior;
    if (behavior !== undefined && behavior !== 'inclusive' && behavior !== 'exclusive') throw new CliUsageError('--behavior must be inclusive or exclusive');
    const org = await organizationOption(ctx, 'tax settings');
    if (options.enable === true || options.disable === true || behavior !== undefined) {
      await updateTaxSettings(commandContext(org), {
        organizationId: org,
        ...(options.enable === true ? { enabled: true } : options.disable === true ? { enabled: false } : {}),
        ...(behavior !== undefined ? { default_tax_behavior: behavior } : {}),
      });
    }
    return taxSettingsFor(services.store, org);
  },
  format: (s: SettingsResult) =>
    [
      `tax collection: ${s.enabled ? 'on' : 'off'}`,
      `default tax behaviour: ${s.default_tax_behavior} (prices ${s.default_tax_behavior === 'inclusive' ? 'include the tax' : 'get the tax added'})`,
      `origin country: ${s.origin_country ?? '(not set: commerce org update --country …)'}`,
      `countries with a rate: ${s.countries.length === 0 ? '(none)' : s.countries.join(' ')}`,
    ].join('\n'),
};

export const taxRatesListCommand: CliCommand = {
  path: ['tax', 'rates', 'list'],
  usage: 'tax rates list [--org ORG] [--all]',
  description: "List the organization's active tax rates (--all: archived ones too).",
  options: { org: 'string', all: 'boolean' },
  async run(ctx) {
    const org = await organizationOption(ctx, 'tax rates list');
    const { rates } = await loadTax(ctx.services.store, org);
    return { data: rates.filter((r) => ctx.options.all === true || r.active) };
  },
  format: (r: { data: TaxRate[] }) => rateLines(r.data),
};

export const taxRatesStarterCommand: CliCommand = {
  path: ['tax', 'rates', 'starter'],
  usage: 'tax rates starter [--org ORG]',
  description: `Add the EU-27 standard VAT rates (as of ${EU_STANDARD_RATES_AS_OF}) for EU countries without a country-wide rate. Check each before collecting.`,
  options: { org: 'string' },
  async run(ctx) {
    const org = await organizationOption(ctx, 'tax rates starter');
    return loadStarterRates(ctx.commandContext(org), { organizationId: org });
  },
  format: (r: { as_of: string; created: TaxRate[] }) =>
    r.created.length === 0
      ? 'every EU country already has a rate: nothing added'
      : `${r.created.length} EU standard rates added (as of ${r.as_of}; rates change: check each with the country's tax authority)\n${rateLines(r.created)}`,
};

export const taxCommands = [taxSettingsCommand, taxRatesListCommand, taxRatesStarterCommand];
