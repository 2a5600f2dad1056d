import type { FastifyRequest, onRequestHookHandler } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { ErrorSchema, manageErrors, notFound } from '../../../platform/http/index.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { loadOrganization } from '../../identity/index.ts';
import { bearerAccess, manageAccess, type RouteAccess } from '../../oauth/index.ts';
import { EU_STANDARD_RATES_AS_OF } from '../domain/euVatRates.ts';
import { createTaxRate, loadStarterRates, loadTax, updateTaxRate, updateTaxSettings } from '../taxCommands.ts';
import { NewTaxRateBody, TaxRateId, TaxRateSchema, TaxRateUpdateBody, TaxSettingsBody, TaxSettingsSchema } from './taxSchemas.ts';

type App = Parameters<FastifyPluginAsyncZod>[0];

/**
 * How the tax routes are reached: the bearer API (API key or `tax:*` token; writes need an
 * owner's credential, see BEARER_ROUTE_ROLES) or the management API (session cookie; owners write).
 */
type Access = RouteAccess & { write: (app: App) => onRequestHookHandler };

/** Tax settings and rates on the bearer API. */
export const taxRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) =>
  routes(app, services, { ...bearerAccess, errors: { ...bearerAccess.errors, 409: ErrorSchema }, write: (app) => app.authenticate });

/** The same through the management API, for the dashboard. */
export const taxManageRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) =>
  routes(app, services, { ...manageAccess, errors: { ...manageErrors, 404: ErrorSchema, 409: ErrorSchema }, write: (app) => app.authenticateOwner });

function routes(app: App, services: Services, access: Access): void {
  const { prefix, errors } = access;
  const read = access.onRequest(app);
  const write = access.write(app);
  const context = (request: FastifyRequest) => access.context(services, request);
  const settingsOf = async (organizationId: string): Promise<z.infer<typeof TaxSettingsSchema>> => {
    const [tax, organization] = await Promise.all([loadTax(services.store, organizationId), loadOrganization(services.store, organizationId)]);
    return {
      ...tax.settings,
      origin: { country: organization?.address?.country ?? null, vat_number: organization?.vat_number ?? null },
      starter_rates_as_of: EU_STANDARD_RATES_AS_OF,
    };
  };

  app.get(
    `${prefix}/tax/settings`,
    { onRequest: read, schema: { ...access.schema, summary: 'Whether tax is collected, the default tax behaviour, and the origin it is computed from.', response: { 200: TaxSettingsSchema, ...errors } } },
    async (request) => settingsOf(access.organizationOf(request)),
  );

  app.post(
    `${prefix}/tax/settings`,
    {
      onRequest: write,
      schema: { ...access.schema, summary: 'Turn tax collection on or off, or set the default tax behaviour (owners).', body: TaxSettingsBody, response: { 200: TaxSettingsSchema, ...errors } },
    },
    async (request) => {
      const organizationId = access.organizationOf(request);
      await updateTaxSettings(context(request), { organizationId, ...request.body });
      return settingsOf(organizationId);
    },
  );

  app.get(
    `${prefix}/tax_rates`,
    {
      onRequest: read,
      schema: {
        ...access.schema,
        summary: "The organization's tax rates, newest first.",
        querystring: z.object({ active: z.enum(['true', 'false']).optional().describe('Only active (or only archived) rates.') }).strict(),
        response: { 200: z.object({ object: z.literal('list'), data: z.array(TaxRateSchema), has_more: z.literal(false) }), ...errors },
      },
    },
    async (request) => {
      const { rates } = await loadTax(services.store, access.organizationOf(request));
      const active = request.query.active === undefined ? null : request.query.active === 'true';
      return { object: 'list' as const, data: rates.filter((r) => active === null || r.active === active).reverse(), has_more: false as const };
    },
  );

  app.post(
    `${prefix}/tax_rates`,
    {
      onRequest: write,
      schema: { ...access.schema, summary: 'Create a tax rate (owners); 409 when an active rate applies to the same place.', body: NewTaxRateBody, response: { 201: TaxRateSchema, ...errors } },
    },
    async (request, reply) => {
      const b = request.body;
      const rate = await createTaxRate(context(request), {
        organizationId: access.organizationOf(request),
        rate: {
          display_name: b.display_name,
          description: b.description ?? null,
          percentage: b.percentage,
          country: b.country,
          state: b.state ?? null,
          postal_code_prefix: b.postal_code_prefix ?? null,
          jurisdiction: b.jurisdiction ?? null,
          active: b.active ?? true,
        },
      });
      return reply.code(201).send(rate);
    },
  );

  app.post(
    `${prefix}/tax_rates/starter`,
    {
      onRequest: write,
      schema: {
        ...access.schema,
        summary: 'Add the EU-27 standard VAT rates for every EU country without an active rate (owners). Dated: check each before collecting.',
        response: { 200: z.object({ as_of: z.string(), created: z.array(TaxRateSchema) }), ...errors },
      },
    },
    async (request) => loadStarterRates(context(request), { organizationId: access.organizationOf(request) }),
  );

  const Params = z.object({ id: TaxRateId });

  app.get(
    `${prefix}/tax_rates/:id`,
    { onRequest: read, schema: { ...access.schema, summary: 'A tax rate.', params: Params, response: { 200: TaxRateSchema, ...errors } } },
    async (request) => {
      const { rates } = await loadTax(services.store, access.organizationOf(request));
      const rate = rates.find((r) => r.id === request.params.id);
      if (!rate) throw notFound('Tax rate');
      return rate;
    },
  );

  app.post(
    `${prefix}/tax_rates/:id`,
    {
      onRequest: write,
      schema: {
        ...access.schema,
        summary: "Change a tax rate's display name or description, or archive it (active: false) (owners). Its percentage never changes.",
        params: Params,
        body: TaxRateUpdateBody,
        response: { 200: TaxRateSchema, ...errors },
      },
    },
    async (request) => updateTaxRate(context(request), { organizationId: access.organizationOf(request), id: request.params.id, ...request.body }),
  );
}
