import { deleteOAuthApp, loadOAuthApp, registerOAuthApp } from '../../modules/oauth/oauthCommands.ts';
import { redirectUriProblem } from '../../modules/oauth/domain/redirectUri.ts';
import { OAUTH_APPS, type OAuthAppDoc } from '../../modules/oauth/oauthProjection.ts';
import { organizationExists } from '../../modules/identity/identityCommands.ts';
import { CliUsageError, listCommand, orgFilter, requireArg, requireOption, table, type CliCommand } from '../command.ts';

type Created = { client_id: string; organization_id: string; name: string; redirect_uris: string[]; public: boolean; client_secret: string | null };

export const oauthAppCreateCommand: CliCommand = {
  path: ['oauth-app', 'create'],
  usage: 'oauth-app create --org ORG --redirect-uri URI[,URI…] [--name N] [--public]',
  description:
    'Register an OAuth app of an organization; the client secret is printed once and only its hash is kept. --public: a browser or native app with no secret (PKCE only). Redirect URIs are matched exactly.',
  options: { org: 'string', 'redirect-uri': 'string', name: 'string', public: 'boolean' },
  async run({ options, commandContext }) {
    const organizationId = requireOption(options, 'org');
    const redirectUris = requireOption(options, 'redirect-uri')
      .split(',')
      .map((u) => u.trim())
      .filter(Boolean);
    if (redirectUris.length === 0 || redirectUris.length > 10) throw new CliUsageError('--redirect-uri takes 1 to 10 URIs, separated by commas');
    for (const uri of redirectUris) {
      const problem = redirectUriProblem(uri);
      if (problem) throw new CliUsageError(`--redirect-uri: '${uri}' ${problem}`);
    }
    const name = typeof options.name === 'string' && options.name.trim() !== '' ? options.name.trim().slice(0, 255) : 'OAuth app';
    const ctx = commandContext(organizationId);
    if (!(await organizationExists(ctx, organizationId))) throw new CliUsageError(`--org: no organization '${organizationId}'`);
    return registerOAuthApp(ctx, { organizationId, userId: 'cli', name, redirectUris, public: options.public === true });
  },
  format: (a: Created) =>
    `OAuth app ${a.client_id} created for ${a.organization_id}: ${a.name} (${a.public ? 'public, PKCE only' : 'confidential'})\n` +
    `  client_id:     ${a.client_id}\n` +
    (a.client_secret ? `  client_secret: ${a.client_secret}\n\nCopy the secret now; it is not shown again.\n` : ''),
};

export const oauthAppListCommand = listCommand<OAuthAppDoc>(
  'oauth-app',
  'List OAuth apps (never their secrets) with their redirect URIs.',
  ({ services, options }) => services.readStore.find<OAuthAppDoc>(OAUTH_APPS, { filter: orgFilter(options), sort: [['organization_id', 1], ['created_at', 1]] }),
  (rows) =>
    table(
      ['CLIENT ID', 'ORGANIZATION', 'TYPE', 'NAME', 'REDIRECT URIS'],
      rows.map((r) => [r.id, r.organization_id, r.public ? 'public' : 'confidential', r.name, r.redirect_uris.join(' ')]),
    ),
);

export const oauthAppDeleteCommand: CliCommand = {
  path: ['oauth-app', 'delete'],
  usage: 'oauth-app delete CLIENT_ID',
  maxArgs: 1,
  description: "Delete an OAuth app: its tokens answer 401 from then on and it can start no new authorization.",
  async run({ args, services, commandContext }) {
    const clientId = requireArg(args, 'oauth-app delete needs the client id (app_…)');
    const app = await loadOAuthApp(services.store, clientId);
    if (app.status !== 'active') throw new CliUsageError(`no OAuth app '${clientId}'`);
    await deleteOAuthApp(commandContext(app.organizationId), clientId, app.organizationId);
    return { client_id: clientId, deleted: true };
  },
  format: (r: { client_id: string }) => `OAuth app ${r.client_id} deleted`,
};

export const oauthAppCommands = [oauthAppCreateCommand, oauthAppListCommand, oauthAppDeleteCommand];
