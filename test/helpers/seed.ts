import type { TestServer } from './testServer.ts';

/**
 * Gives an organization some data of every kind the routes serve, through the commands of each
 * area, so cross-organization tests have real ids to try. Areas add their seeding here.
 */
export async function seedOrganization(_server: TestServer, _organizationId: string): Promise<void> {
  // Identity is seeded by server.identity(); other areas add theirs as they land.
}
