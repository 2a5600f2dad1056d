import { randomBytes } from 'node:crypto';
import { handleCommand, type CommandContext } from '../../platform/es/index.ts';
import { secretBox } from '../../platform/lib/index.ts';
import type { Services } from '../../platform/runtime/index.ts';
import { smtpSettingsDecider, smtpSettingsStream, type SmtpServer } from './domain/smtpSettings.ts';

/**
 * The organizations' SMTP settings with their sealed passwords, in the read store beside the read
 * models but owned by no projection (as the Stripe credentials): a rebuild never drops them, and
 * the log and its copies hold no password, even sealed.
 */
export const SMTP_SETTINGS = 'smtp_settings';

export type SmtpSettingsDoc = SmtpServer & { id: string; credentials_id: string; sealed_password: string | null; updated_at: number };

/** Settings with the password opened, for the sender only. */
export type SmtpSettings = SmtpServer & { credentials_id: string; password: string | null };

const box = (services: Services) => secretBox(services.secrets.data, 'commerce smtp passwords');

/**
 * Sets the organization's SMTP server. `password` left out keeps the one set before (the settings
 * page never shows it back); null removes it.
 */
export async function setSmtpSettings(
  ctx: CommandContext,
  services: Services,
  organizationId: string,
  server: SmtpServer,
  password: string | null | undefined,
): Promise<SmtpSettingsDoc> {
  const before = await services.readStore.get<SmtpSettingsDoc>(SMTP_SETTINGS, organizationId);
  const sealed = password === undefined ? (before?.sealed_password ?? null) : password === null ? null : box(services).seal(password);
  // A new id per change: senders holding a connection for the old settings see they changed.
  const credentialsId = randomBytes(9).toString('base64url');
  const doc: SmtpSettingsDoc = { id: organizationId, ...server, credentials_id: credentialsId, sealed_password: sealed, updated_at: ctx.metadata.occurred_at };
  // The record first: an event naming a record that is missing would leave the sender without a password.
  await services.readStore.upsert(SMTP_SETTINGS, doc);
  await handleCommand(ctx, smtpSettingsStream(organizationId), smtpSettingsDecider, { type: 'SetSmtpSettings', server, credentialsId, now: ctx.metadata.occurred_at });
  return doc;
}

export async function removeSmtpSettings(ctx: CommandContext, services: Services, organizationId: string): Promise<void> {
  await handleCommand(ctx, smtpSettingsStream(organizationId), smtpSettingsDecider, { type: 'RemoveSmtpSettings', now: ctx.metadata.occurred_at });
  await services.readStore.delete(SMTP_SETTINGS, organizationId);
}

export function smtpSettingsDoc(services: Services, organizationId: string): Promise<SmtpSettingsDoc | null> {
  return services.readStore.get<SmtpSettingsDoc>(SMTP_SETTINGS, organizationId);
}

/** The organization's SMTP settings with the password opened, or null when it has none. */
export async function smtpSettingsOf(services: Services, organizationId: string): Promise<SmtpSettings | null> {
  const doc = await smtpSettingsDoc(services, organizationId);
  if (!doc || doc.id !== organizationId) return null;
  const { host, port, username, from, credentials_id, sealed_password } = doc;
  return { host, port, username, from, credentials_id, password: sealed_password === null ? null : box(services).open(sealed_password) };
}

/** The organizations that have their own SMTP server. */
export async function organizationsWithSmtp(services: Services): Promise<string[]> {
  return (await services.readStore.find<SmtpSettingsDoc>(SMTP_SETTINGS, { filter: {}, limit: 100_000 })).map((d) => d.id);
}
