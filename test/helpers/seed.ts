import { runImport } from '../../commands/import/importFile.ts';
import type { TestServer } from './testServer.ts';

export type SeededIds = Record<string, string[]>;

/**
 * Gives an organization data of every kind the routes serve, through the real commands and
 * routes of each area, and returns the ids it made by route parameter name (`product`, `id`,
 * `trigger_id`, `workflow_id`, …) for the routes whose ids no list route shows.
 */
export async function seedOrganization(server: TestServer, organizationId: string): Promise<SeededIds> {
  const ctx = () => server.cliContext(organizationId);
  const tag = organizationId.slice(-6);
  await runImport(
    { command: ctx(), organizationId, readStore: server.services.readStore, catchUp: server.settle },
    {
      families: [{ lookup_key: `fam-${tag}`, name: 'Family', id: `fam_${tag}` }],
      products: ['alpha', 'beta'].map((key) => ({
        key: `${key}-${tag}`,
        name: key,
        display_name: key.toUpperCase(),
        description: `About ${key}`,
        family: `fam-${tag}`,
        published: true,
        features: [],
        twins: [],
        plans: [{ name: 'monthly', display_name: 'Monthly', description: 'Monthly', renew_interval: 'P1M', currency_code: 'EUR', charges: [{ amount: 1900 }] }],
      })),
    },
  );
  await server.settle();
  return {};
}
