import { lookup } from 'node:dns/promises';
import nodemailer from 'nodemailer';
import { classifyAddress } from '../../platform/outbound/index.ts';
import type { SmtpSettings } from './smtpSettings.ts';

export type OutgoingMail = { from: string; to: string; subject: string; text: string; html?: string; messageId: string };

export type Mailer = {
  /** Resolves with the server's answer to the message (`250 OK: queued as …`). */
  send(mail: OutgoingMail): Promise<{ response: string }>;
  close(): void;
};

// Time-outs well below nodemailer's two minutes, so a server that does not answer fails the
// attempt (retried later) instead of holding the outbox.
const TIMEOUTS = { connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 };

/** An SMTP client on nodemailer from the operator's SMTP_URL (smtp://user:pass@host:port, smtps://…). */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport({ url, ...TIMEOUTS });
  return {
    async send(mail) {
      const info = (await transport.sendMail(mail)) as { response?: string };
      return { response: info.response ?? '' };
    },
    close() {
      transport.close();
    },
  };
}

/** Ports an organization's SMTP server may listen on (submission, SMTPS, relay, and the common alternative). */
export const SMTP_PORTS = [25, 465, 587, 2525];

/**
 * Where a seller's SMTP host resolves to, refused when private or loopback (an owner's setting
 * must not reach into the service's own network) unless the operator allows it in
 * SMTP_ALLOW_HOSTS. The connection goes to the address checked here (no second resolution).
 */
export async function checkedSmtpAddress(host: string, port: number, allowHosts: readonly string[]): Promise<string> {
  const allowed = allowHosts.includes(host.toLowerCase());
  if (!allowed && !SMTP_PORTS.includes(port)) throw new Error(`port ${port} is not an SMTP port (${SMTP_PORTS.join(', ')})`);
  let addresses: { address: string }[];
  try {
    addresses = await lookup(host, { all: true });
  } catch {
    throw new Error(`the SMTP host ${host} does not resolve`);
  }
  if (addresses.length === 0) throw new Error(`the SMTP host ${host} does not resolve`);
  if (!allowed) {
    for (const { address } of addresses) {
      const reason = classifyAddress(address);
      if (reason) throw new Error(`the SMTP host ${host} is a ${reason.replace('_', ' ')} address (${address}); the operator may allow it in SMTP_ALLOW_HOSTS`);
    }
  }
  return addresses[0]!.address;
}

/** A client of an organization's own SMTP server: TLS from the start on 465, STARTTLS when offered elsewhere. */
export function organizationMailer(settings: SmtpSettings, allowHosts: readonly string[]): Mailer {
  let transport: ReturnType<typeof nodemailer.createTransport> | null = null;
  return {
    async send(mail) {
      if (!transport) {
        const address = await checkedSmtpAddress(settings.host, settings.port, allowHosts);
        transport = nodemailer.createTransport({
          host: address,
          port: settings.port,
          secure: settings.port === 465,
          tls: { servername: settings.host },
          ...(settings.username ? { auth: { user: settings.username, pass: settings.password ?? '' } } : {}),
          ...TIMEOUTS,
        });
      }
      const info = (await transport.sendMail(mail)) as { response?: string };
      return { response: info.response ?? '' };
    },
    close() {
      transport?.close();
    },
  };
}
