import { outboxBox } from '../../modules/receipts/outboxSeal.ts';
import { serviceBaseUrl } from '../../platform/runtime/serverUrlFile.ts';
import { formatMoney, receiptEmail } from '../../modules/receipts/domain/receiptMessage.ts';
import { notFound } from '../../platform/domain/domainError.ts';
import type { Filter } from '../../platform/readStore/readStore.ts';
import { NOTICES, RECEIPTS, type NoticeDoc, type ReceiptDoc } from '../../modules/receipts/receiptProjection.ts';
import { CliUsageError, orgFilter, requireArg, type CliCommand, type CliContext } from '../command.ts';

const NO_SMTP = 'SMTP_URL is not set: emails of organizations without an SMTP server of their own (Settings → Email) stay in the outbox. See one with `commerce outbox show ID`.';

async function listOutbox({ services, options, catchUp }: CliContext) {
  const status = options.status;
  if (status !== undefined && status !== 'queued' && status !== 'sent') throw new CliUsageError('--status is queued or sent');
  const limit = options.limit === undefined ? 50 : Number(options.limit);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000) throw new CliUsageError('--limit is a whole number from 1 to 1000');
  const filter: Filter = { ...orgFilter(options), ...(status ? { status } : {}) };
  await catchUp();
  const docs = await services.readStore.find<ReceiptDoc>(RECEIPTS, { filter, sort: [['queued_at', -1]], limit });
  const receipts = docs.map((d) => ({
    invoice_id: d.id,
    invoice_number: d.receipt.invoice_number,
    organization_id: d.organization_id,
    to: d.receipt.buyer_email,
    total: formatMoney(d.receipt.total, d.receipt.currency),
    status: d.status,
    attempts: d.attempts,
    last_error: d.last_error,
    queued_at: d.queued_at,
    sent_at: d.sent_at,
  }));
  // Notices to the organization's people (an endpoint disabled...) share the outbox.
  const notices = (await services.readStore.find<NoticeDoc>(NOTICES, { filter, sort: [['queued_at', -1]], limit })).map((d) => ({
    notice_id: d.id,
    organization_id: d.organization_id,
    to: d.notice.to,
    subject: d.notice.subject,
    status: d.status,
    attempts: d.attempts,
    last_error: d.last_error,
    queued_at: d.queued_at,
    sent_at: d.sent_at,
  }));
  return { smtp: Boolean(services.config.SMTP_URL), receipts, notices };
}

export const outboxListCommand: CliCommand = {
  path: ['outbox', 'list'],
  usage: 'outbox list [--org ORG] [--status queued|sent] [--limit N]',
  description: 'List the receipt emails of paid invoices, newest first: queued (not sent yet, or failing and retried) or sent.',
  options: { org: 'string', status: 'string', limit: 'string' },
  run: listOutbox,
  format: (r: Awaited<ReturnType<typeof listOutbox>>) =>
    [
      ...(r.receipts.length === 0 ? ['No receipts in the outbox.'] : []),
      ...r.receipts.map(
        (x) =>
          `${x.invoice_id}  #${x.invoice_number}  ${x.to}  ${x.total}  ${x.status}${x.attempts > 0 ? ` (${x.attempts} attempt${x.attempts > 1 ? 's' : ''})` : ''}${
            x.status === 'queued' && x.last_error ? `  last error: ${x.last_error}` : ''
          }`,
      ),
      ...(r.notices.length === 0 ? [] : ['', 'Notices:', ...r.notices.map((n) => `${n.notice_id}  ${n.to}  ${n.status}  ${n.subject}`)]),
      ...(r.smtp ? [] : [NO_SMTP]),
    ].join('\n'),
};

async function showOutbox({ services, args, catchUp }: CliContext) {
  const invoiceId = requireArg(args, 'outbox show takes the invoice id (see `commerce outbox list`)');
  await catchUp();
  const doc = await services.readStore.get<ReceiptDoc>(RECEIPTS, invoiceId);
  if (!doc) {
    // A notice's id (from `outbox list`) shows that notice.
    const notice = await services.readStore.get<NoticeDoc>(NOTICES, invoiceId);
    if (!notice) throw notFound('Receipt');
    const { to, subject } = notice.notice;
    // A sealed notice (a sign-in link) is opened for the operator, who holds the service's secret.
    const text = notice.notice.sealed ? outboxBox(services).open(notice.notice.text) : notice.notice.text;
    return { invoice_id: notice.id, status: notice.status, attempts: notice.attempts, last_error: notice.last_error, from: services.config.RECEIPT_FROM, to, subject, text, receipt_url: '' };
  }
  // The address the service answers on (the running serve's, BASE_URL first), not this process's PORT.
  const base = serviceBaseUrl(services.config);
  const url = `${base}/receipts/${doc.token}`;
  const email = receiptEmail(doc.receipt, url, base);
  return {
    invoice_id: doc.id,
    status: doc.status,
    attempts: doc.attempts,
    last_error: doc.last_error,
    from: services.config.RECEIPT_FROM,
    to: doc.receipt.buyer_email,
    subject: email.subject,
    text: email.text,
    receipt_url: url,
  };
}

export const outboxShowCommand: CliCommand = {
  path: ['outbox', 'show'],
  usage: 'outbox show INVOICE_ID|NOTICE_ID',
  maxArgs: 1,
  description: 'Show one receipt email as it is (or was) sent, with the link to its receipt page and PDF.',
  run: showOutbox,
  format: (r: Awaited<ReturnType<typeof showOutbox>>) =>
    [
      `${r.status === 'sent' ? 'Sent' : 'Queued'} ${r.receipt_url === '' ? 'notice' : 'receipt of invoice'} ${r.invoice_id}${r.attempts > 0 ? ` (${r.attempts} attempt${r.attempts > 1 ? 's' : ''})` : ''}`,
      ...(r.status === 'queued' && r.last_error ? [`Last error: ${r.last_error}`] : []),
      `From: ${r.from}`,
      `To: ${r.to}`,
      `Subject: ${r.subject}`,
      '',
      r.text,
    ].join('\n'),
};
