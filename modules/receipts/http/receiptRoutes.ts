import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { receiptPdf } from './receiptPdf.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { formatDate, formatMoney, invoiceLabel } from '../domain/receiptMessage.ts';
import { notFound } from '../../../platform/domain/index.ts';
import { RECEIPTS, type ReceiptDoc } from '../receiptProjection.ts';
import { escapeHtml } from '../../../platform/http/index.ts';

/** The token in a receipt link: nanoid(32). Anything else cannot name a receipt. */
const Token = z.string().regex(/^[A-Za-z0-9_-]{32}$/, 'The receipt link is not valid.');
const Params = z.object({ token: Token });

async function receiptByToken(services: Services, token: string): Promise<ReceiptDoc> {
  const [doc] = await services.readStore.find<ReceiptDoc>(RECEIPTS, { filter: { token }, limit: 1 });
  if (!doc) throw notFound('Receipt');
  return doc;
}

/** The token is the only key: keep it out of caches and out of the Referer of links the page has. */
function privateHeaders(reply: FastifyReply): FastifyReply {
  return reply.header('cache-control', 'no-store').header('referrer-policy', 'no-referrer').header('x-robots-tag', 'noindex');
}

function receiptPage(doc: ReceiptDoc, nonce: string): string {
  const r = doc.receipt;
  const rows = r.lines.map((l) => `<tr><td>${escapeHtml(l.name)}</td><td class="n">${escapeHtml(formatMoney(l.amount, r.currency))}</td></tr>`).join('');
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(invoiceLabel(r))}: ${escapeHtml(r.organization_name)}</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#111}
table{width:100%;border-collapse:collapse}td,th{padding:.35rem 0;text-align:left}.n{text-align:right}tfoot th{border-top:1px solid #999}</style>
</head><body><main>
<h1>${escapeHtml(r.organization_name)}</h1>
${r.organization_address?.length ? `<address id="seller-address">${r.organization_address.map(escapeHtml).join('<br>')}</address>\n` : ''}<p id="invoice-number">${escapeHtml(invoiceLabel(r))}, paid on ${escapeHtml(formatDate(r.paid_at))} with ${escapeHtml(r.card.brand)} ending in ${escapeHtml(r.card.last4)}.</p>
<table><tbody>${rows}</tbody><tfoot><tr><th>Total</th><th class="n" id="total">${escapeHtml(formatMoney(r.total, r.currency))}</th></tr></tfoot></table>
<p><a id="pdf" href="/receipts/${escapeHtml(doc.token)}/invoice.pdf" download="invoice-${r.invoice_number}.pdf">Download the invoice (PDF)</a></p>
</main></body></html>`;
}

/**
 * The buyer's receipt page and the invoice PDF, reached only through the unguessable link in the
 * receipt email (`/receipts/<token>`): no sign-in, and the token names nothing else.
 */
export async function receiptRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();

  r.get('/receipts/:token', { config: { secretPath: true }, schema: { summary: 'Receipt page (HTML) of a paid invoice, by the link in the receipt email', params: Params } }, async (request, reply) => {
    const doc = await receiptByToken(services, request.params.token);
    const nonce = randomBytes(18).toString('base64url');
    return privateHeaders(reply)
      .header('content-security-policy', `default-src 'none'; style-src 'nonce-${nonce}'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'`)
      .type('text/html; charset=utf-8')
      .send(receiptPage(doc, nonce));
  });

  r.get('/receipts/:token/invoice.pdf', { config: { secretPath: true }, schema: { summary: 'The paid invoice as a PDF, by the link in the receipt email', params: Params } }, async (request, reply) => {
    const doc = await receiptByToken(services, request.params.token);
    const pdf = await receiptPdf(doc.receipt);
    return privateHeaders(reply)
      .type('application/pdf')
      .header('content-disposition', `inline; filename="invoice-${doc.receipt.invoice_number}.pdf"`)
      .send(pdf);
  });
}
