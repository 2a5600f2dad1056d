import { ORGANIZATIONS, type OrganizationDoc } from '../../modules/identity/identityProjection.ts';
import { organizationExists } from '../../modules/identity/identityCommands.ts';
import { CliUsageError, type CliContext } from '../command.ts';

/** --org when given, else the only organization there is; with several, a usage error naming them. Catches up first. */
export async function organizationOption(ctx: Pick<CliContext, 'services' | 'options' | 'catchUp' | 'commandContext'>, command: string): Promise<string> {
  const given = ctx.options.org;
  if (typeof given === 'string' && given !== '') {
    if (!(await organizationExists(ctx.commandContext(given), given))) throw new CliUsageError(`--org: no organization '${given}' (see commerce org list)`);
    await ctx.catchUp();
    return given;
  }
  await ctx.catchUp();
  const orgs = await ctx.services.readStore.find<OrganizationDoc>(ORGANIZATIONS, { sort: [['created_at', 1]], limit: 6 });
  if (orgs.length === 1) return orgs[0]!.id;
  if (orgs.length === 0) throw new CliUsageError(`${command}: there is no organization yet (commerce org create, or commerce demo)`);
  const names = orgs.slice(0, 5).map((o) => `${o.id} (${o.name})`).join(', ');
  throw new CliUsageError(`${command}: --org is required, as there are several organizations: ${names}${orgs.length > 5 ? ', …' : ''}`);
}
