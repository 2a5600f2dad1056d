import type { Services } from '../../platform/runtime/services.ts';
import { inviteIfNeeded, invitationPath, inviteUser, userIdByEmail } from '../../modules/identity/accountCommands.ts';
import type { CommandContext } from '../../platform/es/handleCommand.ts';
import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { CliUsageError, requireOption, type CliCommand } from '../command.ts';

export type Invitation = { link: string; expires_at: number };

const invitationLink = (services: Services, token: string) => `${serviceBaseUrl(services.config)}${invitationPath(token)}`;

/** A one-time link for a user who has no way to sign in yet (none for one who has). */
export async function invitationIfNeeded(services: Services, ctx: CommandContext, userId: string): Promise<Invitation | null> {
  const invitation = await inviteIfNeeded(ctx, userId);
  return invitation && { link: invitationLink(services, invitation.token), expires_at: invitation.expires_at };
}

export const formatInvitation = (i: Invitation) =>
  `Invitation link (one use, until ${new Date(i.expires_at * 1000).toISOString()}): set a password or register a passkey at\n\n  ${i.link}\n`;

export const userResetPasswordCommand: CliCommand = {
  path: ['user', 'reset-password'],
  usage: 'user reset-password --email E',
  description: 'Print a new one-time link (24 h) at which the user sets a new password or registers a passkey; earlier links stop working.',
  options: { email: 'string' },
  async run({ options, services, commandContext }) {
    const email = requireOption(options, 'email');
    const userId = await userIdByEmail(services.store, email);
    if (!userId) throw new CliUsageError(`--email: no user has the email '${email}'`);
    const invitation = await inviteUser(commandContext(), userId);
    return { user_id: userId, link: invitationLink(services, invitation.token), expires_at: invitation.expires_at };
  },
  format: (r: Invitation & { user_id: string }) => `user ${r.user_id}: ${formatInvitation(r)}`,
};
