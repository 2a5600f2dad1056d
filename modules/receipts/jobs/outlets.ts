import type { Services } from '../../../platform/runtime/index.ts';
import { organizationMailer, smtpMailer, type Mailer } from '../smtpMailer.ts';
import { organizationsWithSmtp, smtpSettingsOf } from '../smtpSettings.ts';

/** How one organization's email leaves: through which server, from which address. */
export type Outlet = { mailer: Mailer; from: string };

/** A Mailer as it is (the operator's, From RECEIPT_FROM), or what picks one per organization. */
export type MailerChoice = Mailer | ((organizationId: string) => Promise<Outlet | null>);

export async function outletOf(services: Services, choice: MailerChoice, organizationId: string): Promise<Outlet | null> {
  return typeof choice === 'function' ? choice(organizationId) : { mailer: choice, from: services.config.RECEIPT_FROM };
}

/**
 * The outbox's way out per organization: its own SMTP server when it set one (Settings), else the
 * operator's SMTP_URL, else none (its messages wait). One client per organization and settings,
 * made again when the settings change.
 */
export function outlets(services: Services) {
  const operator = services.config.SMTP_URL ? smtpMailer(services.config.SMTP_URL) : null;
  const own = new Map<string, { credentialsId: string; mailer: Mailer }>();
  return {
    operator,
    async of(organizationId: string): Promise<Outlet | null> {
      const settings = await smtpSettingsOf(services, organizationId);
      if (!settings) return operator ? { mailer: operator, from: services.config.RECEIPT_FROM } : null;
      let held = own.get(organizationId);
      if (held?.credentialsId !== settings.credentials_id) {
        held?.mailer.close();
        held = { credentialsId: settings.credentials_id, mailer: organizationMailer(settings, services.config.SMTP_ALLOW_HOSTS) };
        own.set(organizationId, held);
      }
      return { mailer: held.mailer, from: settings.from };
    },
    /** The organizations whose messages can leave (null: all of them, through the operator's server). */
    async reachable(): Promise<string[] | null> {
      return operator ? null : organizationsWithSmtp(services);
    },
    close() {
      operator?.close();
      for (const { mailer } of own.values()) mailer.close();
      own.clear();
    },
  };
}
