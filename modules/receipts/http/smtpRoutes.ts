import { randomBytes } from 'node:crypto';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { z } from 'zod';
import type { Services } from '../../../platform/runtime/index.ts';
import { HttpError, manageContext, manageErrors, manageRoute } from '../../../platform/http/index.ts';
import { requireOrganization, requireOwner } from '../../identity/index.ts';
import { framedEmail, textToHtml } from '../domain/seller.ts';
import { loadSeller } from '../sellerHeader.ts';
import { checkedSmtpAddress, organizationMailer, smtpMailer, type Mailer } from '../smtpMailer.ts';
import { removeSmtpSettings, setSmtpSettings, smtpSettingsDoc, smtpSettingsOf, type SmtpSettingsDoc } from '../smtpSettings.ts';
import { publicBaseUrl } from '../jobs/noticeOutbox.ts';
import { RECEIPTS, NOTICES } from '../receiptProjection.ts';
import { OutboxAnswer, SmtpAnswer } from './smtpSchemas.ts';

const P = '/manage/api';

const Host = z
  .string()
  .trim()
  .min(1)
  .max(253)
  .regex(/^(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(?:\.[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*$|^\[?[0-9A-Fa-f:.]+\]?$/, 'must be a host name such as smtp.example.com')
  .transform((h) => h.replace(/^\[|\]$/g, '').toLowerCase());
/** `shop@example.com` or `Shop <shop@example.com>`: one address, no line breaks (header injection). */
const From = z
  .string()
  .trim()
  .max(200)
  .regex(/^(?:[^<>\r\n"]{0,100}<[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+>|[^\s@<>]+@[^\s@<>]+\.[^\s@<>]+)$/, 'must be an address such as Shop <shop@example.com>');

const answer = (services: Services, doc: SmtpSettingsDoc | null) => ({
  configured: doc !== null,
  host: doc?.host ?? null,
  port: doc?.port ?? null,
  username: doc?.username ?? null,
  from: doc?.from ?? null,
  password_set: Boolean(doc?.sealed_password),
  updated_at: doc?.updated_at ?? null,
  operator_default: Boolean(services.config.SMTP_URL),
});

/** The organization's SMTP server for its buyer emails (owners), its test email, and the outbox's state. */
export const smtpRoutes: FastifyPluginAsyncZod<{ services: Services }> = async (app, { services }) => {
  app.get(
    `${P}/organization/smtp`,
    { onRequest: app.authenticateOwner, schema: { ...manageRoute, summary: "The organization's SMTP server for buyer emails (owners; never the password).", response: { 200: SmtpAnswer, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOwner(request);
      return answer(services, await smtpSettingsDoc(services, organizationId));
    },
  );

  app.put(
    `${P}/organization/smtp`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: "Set the organization's SMTP server (owners): receipts, refunds and every other buyer email go through it, from its address.",
        description: 'The password is sealed at rest and never shown back; left out, the one stored stays. Hosts on private or loopback addresses are refused unless the operator allows them (SMTP_ALLOW_HOSTS).',
        body: z.strictObject({
          host: Host,
          port: z.number().int().min(1).max(65535).default(587),
          username: z.string().trim().max(200).nullable().default(null).transform((v) => (v === '' ? null : v)),
          password: z.string().max(500).nullable().optional(),
          from: From,
        }),
        response: { 200: SmtpAnswer, ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId } = requireOwner(request);
      const { host, port, username, password, from } = request.body;
      try {
        await checkedSmtpAddress(host, port, services.config.SMTP_ALLOW_HOSTS);
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error);
        throw new HttpError(422, 'invalid_smtp_host', `The SMTP server cannot be used: ${message}.`, { [message.startsWith('port') ? 'port' : 'host']: [message] });
      }
      const doc = await setSmtpSettings(manageContext(services, request), services, organizationId, { host, port, username, from }, password);
      return answer(services, doc);
    },
  );

  app.delete(
    `${P}/organization/smtp`,
    { onRequest: app.authenticateOwner, schema: { ...manageRoute, summary: "Remove the organization's SMTP server (owners): email goes through the operator's, if any.", response: { 204: z.null(), ...manageErrors } } },
    async (request, reply) => {
      const { organizationId } = requireOwner(request);
      await removeSmtpSettings(manageContext(services, request), services, organizationId);
      return reply.code(204).send(null);
    },
  );

  app.post(
    `${P}/organization/smtp/test`,
    {
      onRequest: app.authenticateOwner,
      schema: {
        ...manageRoute,
        summary: 'Send a test email to yourself (owners) through the SMTP server buyer emails would use now, and see its answer.',
        response: { 200: z.object({ to: z.string(), via: z.enum(['organization', 'operator']), response: z.string().describe("The SMTP server's answer.") }), ...manageErrors },
      },
    },
    async (request) => {
      const { organizationId, email } = requireOwner(request);
      const settings = await smtpSettingsOf(services, organizationId);
      const operatorUrl = services.config.SMTP_URL;
      if (!settings && !operatorUrl) throw new HttpError(409, 'smtp_not_configured', 'No SMTP server is set: set one first.');
      const mailer: Mailer = settings ? organizationMailer(settings, services.config.SMTP_ALLOW_HOSTS) : smtpMailer(operatorUrl!);
      const seller = await loadSeller(services, organizationId);
      const text = `This is a test email from ${seller?.name ?? 'your organization'}'s settings. Receipts and other buyer emails go out the same way.`;
      const body = seller ? framedEmail(seller, publicBaseUrl(services.config), { text, html: textToHtml(text) }) : { text, html: textToHtml(text) };
      try {
        const sent = await mailer.send({
          from: settings?.from ?? services.config.RECEIPT_FROM,
          to: email,
          subject: 'Test email',
          messageId: `<smtp-test-${randomBytes(9).toString('base64url')}@commerce.invalid>`,
          ...body,
        });
        return { to: email, via: settings ? ('organization' as const) : ('operator' as const), response: sent.response };
      } catch (error) {
        const message = (error instanceof Error ? error.message : String(error)).slice(0, 500);
        throw new HttpError(502, 'smtp_error', `The SMTP server did not take the test email: ${message}`);
      } finally {
        mailer.close();
      }
    },
  );

  app.get(
    `${P}/outbox`,
    { onRequest: app.authenticateSession, schema: { ...manageRoute, summary: "How many of the organization's emails wait in the outbox, and whether they have a way out.", response: { 200: OutboxAnswer, ...manageErrors } } },
    async (request) => {
      const { organizationId } = requireOrganization(request);
      const filter = { organization_id: organizationId, status: 'queued' };
      const waiting = (await services.readStore.count(RECEIPTS, filter)) + (await services.readStore.count(NOTICES, filter));
      const own = await smtpSettingsDoc(services, organizationId);
      return { waiting, way_out: own ? ('organization' as const) : services.config.SMTP_URL ? ('operator' as const) : null };
    },
  );
};
