import { runImport, type ImportResult } from '../../app/import/importFile.ts';
import type { ProductWriteResult } from '../../modules/catalog/productCommands.ts';
import type { TestServer } from '../helpers/testServer.ts';

export const plan = (name: string, over: Record<string, unknown> = {}) => ({
  name,
  display_name: `${name} plan`,
  description: `The ${name} plan`,
  renew_interval: 'P1M',
  currency_code: 'EUR',
  charges: [{ amount: 1900 }],
  ...over,
});

export const product = (key: string, over: Record<string, unknown> = {}) => ({
  key,
  name: key,
  display_name: key.toUpperCase(),
  description: `About ${key}`,
  family: 'saas',
  published: true,
  features: [{ id: 'seats', name: 'Seats', description: null, value: 5 }],
  twins: [{ provider: 'stripe', external_id: `prod_${key}` }],
  plans: [plan('monthly')],
  ...over,
});

export const families = [{ lookup_key: 'saas', name: 'SaaS', id: 'fam_saas' }];

/** Imports products into an organization through the real import path, then waits for the read models. */
export async function importProducts(server: TestServer, organizationId: string, file: Record<string, unknown>): Promise<ImportResult> {
  const result = await runImport(
    { command: server.cliContext(organizationId), organizationId, catchUp: server.settle },
    file,
  );
  await server.settle();
  return result;
}

export const productResults = (r: ImportResult) => r.sections.products as ProductWriteResult[];
