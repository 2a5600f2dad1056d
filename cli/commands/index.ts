import type { CliCommand } from '../command.ts';

/**
 * Every command's words with the file that defines it, in help order. A file is loaded only when
 * its command runs or shows its help, so `--help` and usage errors start fast.
 */
type CommandFile = () => Promise<Record<string, unknown>>;

const automation: CommandFile = () => import('./automation.ts');
const backup: CommandFile = () => import('./backup.ts');
const benefits: CommandFile = () => import('./benefits.ts');
const catalog: CommandFile = () => import('./catalog.ts');
const checkout: CommandFile = () => import('./checkout.ts');
const coupons: CommandFile = () => import('./coupons.ts');
const customers: CommandFile = () => import('./customers.ts');
const demo: CommandFile = () => import('./demo.ts');
const events: CommandFile = () => import('./events.ts');
const csvExports: CommandFile = () => import('./exports.ts');
const identity: CommandFile = () => import('./identity.ts');
const lists: CommandFile = () => import('./lists.ts');
const oauthApps: CommandFile = () => import('./oauthApps.ts');
const outbox: CommandFile = () => import('./outbox.ts');
const payments: CommandFile = () => import('./payments.ts');
const projections: CommandFile = () => import('./projections.ts');
const serve: CommandFile = () => import('./serve.ts');
const tax: CommandFile = () => import('./tax.ts');
const testClocks: CommandFile = () => import('./testClocks.ts');
const userAccess: CommandFile = () => import('./userAccess.ts');
const webhooks: CommandFile = () => import('./webhooks.ts');
const worker: CommandFile = () => import('./worker.ts');

const index: Array<[string, CommandFile]> = [
  ['serve', serve],
  ['demo', demo],
  ['org create', identity],
  ['org update', identity],
  ['org list', lists],
  ['user create', identity],
  ['user reset-password', userAccess],
  ['api-key create', identity],
  ['api-key list', lists],
  ['api-key revoke', identity],
  ['oauth-app create', oauthApps],
  ['oauth-app list', oauthApps],
  ['oauth-app delete', oauthApps],
  ['import', catalog],
  ['product list', lists],
  ['product publish', catalog],
  ['product archive', catalog],
  ['offer list', lists],
  ['offer publish', checkout],
  ['offer archive', checkout],
  ['session list', lists],
  ['replay session', checkout],
  ['sequence list', automation],
  ['sequence pause', automation],
  ['sequence resume', automation],
  ['trigger list', automation],
  ['trigger replace', automation],
  ['promo list', automation],
  ['coupons list', coupons],
  ['coupons create', coupons],
  ['promotion-codes list', coupons],
  ['promotion-codes create', coupons],
  ['benefits list', benefits],
  ['benefits create', benefits],
  ['benefits grants', benefits],
  ['workflow list', lists],
  ['workflow show', automation],
  ['tax settings', tax],
  ['tax rates list', tax],
  ['tax rates starter', tax],
  ['webhook-endpoint create', webhooks],
  ['webhook-endpoint list', webhooks],
  ['webhook-endpoint update', webhooks],
  ['webhook-endpoint rotate-secret', webhooks],
  ['webhook-endpoint delete', webhooks],
  ['webhook-endpoint deliveries', webhooks],
  ['webhook-endpoint resend', webhooks],
  ['stripe connect', payments],
  ['stripe disconnect', payments],
  ['refund', payments],
  ['test-clocks create', testClocks],
  ['test-clocks advance', testClocks],
  ['test-clocks show', testClocks],
  ['test-clocks delete', testClocks],
  ['outbox list', outbox],
  ['outbox show', outbox],
  ['export sales', csvExports],
  ['export invoices', csvExports],
  ['export customers', csvExports],
  ['export tax', csvExports],
  ['projections rebuild', projections],
  ['worker projections', worker],
  ['worker automation', worker],
  ['events copy', events],
  ['backup', backup],
  ['customers backfill', customers],
];

/** Every command's words, in help order: what matching and typo suggestions need, with no command file loaded. */
export const commandPaths: string[][] = index.map(([words]) => words.split(' '));

const isCommand = (value: unknown): value is CliCommand =>
  typeof value === 'object' && value !== null && Array.isArray((value as CliCommand).path) && typeof (value as CliCommand).run === 'function';

/** The commands a command file exports, alone or in lists. */
export function commandsIn(file: Record<string, unknown>): CliCommand[] {
  return Object.values(file).flatMap((value) => (Array.isArray(value) ? value.filter(isCommand) : isCommand(value) ? [value] : []));
}

/** The command with these words (one of commandPaths), its file loaded. */
export async function loadCommand(path: string[]): Promise<CliCommand> {
  const words = path.join(' ');
  const entry = index.find(([w]) => w === words);
  if (!entry) throw new Error(`no command '${words}'`);
  const command = commandsIn(await entry[1]()).find((c) => c.path.join(' ') === words);
  if (!command) throw new Error(`command '${words}' is not defined in its file`);
  return command;
}

/** Every command, in help order (`commerce help` loads them all). */
export const loadCommands = (paths: string[][] = commandPaths): Promise<CliCommand[]> => Promise.all(paths.map(loadCommand));
