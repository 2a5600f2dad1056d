import nodemailer from 'nodemailer';

export type OutgoingMail = { from: string; to: string; subject: string; text: string; html?: string; messageId: string };

export type Mailer = {
  send(mail: OutgoingMail): Promise<void>;
  close(): void;
};

/**
 * An SMTP client on nodemailer from an SMTP_URL (smtp://user:pass@host:port, smtps://…). Time-outs
 * well below nodemailer's two minutes, so a server that does not answer fails the attempt (retried
 * later) instead of holding the outbox.
 */
export function smtpMailer(url: string): Mailer {
  const transport = nodemailer.createTransport({ url, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(mail) {
      await transport.sendMail(mail);
    },
    close() {
      transport.close();
    },
  };
}
