import { randomBytes } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { ZodTypeProvider } from 'fastify-type-provider-zod';
import { z } from 'zod';
import { receiptPdf } from './receiptPdf.ts';
import { receiptFigures } from '../domain/receiptFigures.ts';
import { sellerHeader, sellerLogoBytes } from '../sellerHeader.ts';
import { sellerLogoPath } from '../domain/seller.ts';
import type { Services } from '../../../platform/runtime/index.ts';
import { formatDate, formatDay, formatMoney, invoiceLabel, periodLine, sellerOfReceipt } from '../domain/receiptMessage.ts';
import { DomainError, fold, notFound } from '../../../platform/domain/index.ts';
import { invoiceDecider, type InvoiceEvent } from '../../checkout/index.ts';
import { receiptDecider, receiptStream, type ReceiptEvent } from '../domain/receipt.ts';
import { queueReceipt } from '../jobs/receiptOutbox.ts';
import { RECEIPTS, type ReceiptDoc } from '../receiptProjection.ts';
import { commandContext, escapeHtml, HttpError } from '../../../platform/http/index.ts';
import { crossSite } from '../../identity/index.ts';
import { cancelSubscription, loadSubscription, reactivateSubscription } from '../../subscriptions/index.ts';
import { BENEFITS_STYLE, benefitsSection, purchaseBenefits, type PurchaseBenefits } from '../../delivery/index.ts';
import { creditNoteLines, creditNotePdf, listCreditNotes, presentCreditNote, type CreditNoteDoc } from '../../creditNotes/index.ts';

/** How long after the payment the thank-you page's receipt link works (the emailed link works for good). */
const THANK_YOU_LINK_SECONDS = 24 * 3600;

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

/** Where the receipt's subscription stands, as its cancel section shows it. */
type SubscriptionStanding = { kind: 'renews'; at: number } | { kind: 'ends'; at: number } | { kind: 'ended' } | null;

async function standingOf(services: Services, doc: ReceiptDoc): Promise<SubscriptionStanding> {
  const id = doc.receipt.subscription_id;
  if (!id) return null;
  const state = await loadSubscription(services, id);
  if (state.status === 'none' || state.sub.organization_id !== doc.organization_id || state.status === 'incomplete') return null;
  if (state.status === 'canceled' || state.status === 'incomplete_expired') return { kind: 'ended' };
  return state.cancel_at !== null ? { kind: 'ends', at: state.cancel_at } : { kind: 'renews', at: state.current_period_end };
}

/** Cancel at period end, or keep it: plain forms to this receipt's own URL, the token being the credential. */
function subscriptionSection(token: string, standing: SubscriptionStanding): string {
  if (!standing) return '';
  const action = (what: string) => `/receipts/${escapeHtml(token)}/${what}`;
  if (standing.kind === 'ended') return '<section id="subscription"><p>This subscription has ended.</p></section>\n';
  if (standing.kind === 'ends') {
    return `<section id="subscription"><p>Your subscription is canceled. It stays active until ${escapeHtml(formatDay(standing.at))}, and nothing more will be charged.</p>
<form method="post" action="${action('reactivate')}"><button type="submit" id="keep">Keep my subscription</button></form></section>\n`;
  }
  return `<section id="subscription"><p>Your subscription renews on ${escapeHtml(formatDay(standing.at))}.</p>
<form method="post" action="${action('cancel')}"><button type="submit" id="cancel">Cancel subscription</button></form>
<p class="note">It stays active until the end of the period you paid for.</p></section>\n`;
}

/** The invoice's credit notes, one per refund, in the order they were issued. */
async function creditNotesOf(services: Services, doc: ReceiptDoc): Promise<CreditNoteDoc[]> {
  const { items } = await listCreditNotes(services.readStore, doc.organization_id, { invoice: doc.receipt.invoice_id, skip: 0, limit: 100 });
  return items;
}

/** Each refund: how much, when, and its credit note (PDF through this receipt's link). */
function refundsSection(doc: ReceiptDoc, notes: readonly CreditNoteDoc[]): string {
  if (!notes.length) return '';
  const r = doc.receipt;
  const refunded = notes.reduce((sum, n) => sum + n.amount, 0);
  const headline = refunded >= r.total ? `Refunded in full: ${formatMoney(refunded, r.currency)}.` : `Refunded ${formatMoney(refunded, r.currency)} of ${formatMoney(r.total, r.currency)}.`;
  const items = notes
    .map((n) => {
      const t = creditNoteLines(n);
      const pdf = `/receipts/${escapeHtml(doc.token)}/credit_notes/${escapeHtml(n.id)}/pdf`;
      return `<li>${escapeHtml(t.amount)} refunded on ${escapeHtml(formatDay(n.created))}${t.reason ? ` (${escapeHtml(t.reason)})` : ''}: <a href="${pdf}" download="credit-note-${escapeHtml(n.number)}.pdf">credit note ${escapeHtml(n.number)} (PDF)</a></li>`;
    })
    .join('');
  return `<section id="refunds"><h2>Refunds</h2><p id="refund-status">${escapeHtml(headline)}</p><ul>${items}</ul></section>\n`;
}

function receiptPage(doc: ReceiptDoc, nonce: string, standing: SubscriptionStanding = null, notes: readonly CreditNoteDoc[] = [], delivered: PurchaseBenefits | null = null): string {
  const r = doc.receipt;
  const logo = sellerLogoPath(sellerOfReceipt(r));
  const f = receiptFigures(r);
  const rows = f.lines
    .map((l) => {
      const notes = [l.discount, l.tax].filter((n): n is string => n !== null);
      return `<tr><td>${escapeHtml(l.name)}${notes.length ? `<br><span class="note">${notes.map(escapeHtml).join('; ')}</span>` : ''}</td><td class="n">${escapeHtml(l.amount)}</td></tr>`;
    })
    .join('');
  const totals = f.totals
    .map((t) => (t.id === 'total' ? `<tr class="total"><th>${escapeHtml(t.label)}</th><th class="n" id="total">${escapeHtml(t.amount)}</th></tr>` : `<tr><td>${escapeHtml(t.label)}</td><td class="n" id="${t.id}">${escapeHtml(t.amount)}</td></tr>`))
    .join('');
  const buyer = f.buyer.length ? `<p id="buyer">Billed to: ${f.buyer.map(escapeHtml).join('<br>')}</p>\n` : '';
  const statement = f.statement ? `<p id="reverse-charge"><strong>${escapeHtml(f.statement)}</strong></p>\n` : '';
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${escapeHtml(invoiceLabel(r))}: ${escapeHtml(r.organization_name)}</title>
<style nonce="${nonce}">body{font:16px/1.5 system-ui,sans-serif;max-width:36rem;margin:2rem auto;padding:0 1rem;color:#111}
table{width:100%;border-collapse:collapse}td,th{padding:.35rem 0;text-align:left}.n{text-align:right}tfoot tr:first-child>*,tfoot tr.total>*{border-top:1px solid #999}
#seller-logo{display:block;max-height:48px;max-width:200px;height:auto}#seller-vat{color:#444;margin:0}
h2{font-size:1.1rem;margin:0 0 .5rem}#refunds{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #ddd}#subscription{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #ddd}button{font:inherit;padding:.6rem 1rem;border:1px solid #555;border-radius:.4rem;background:#fff;cursor:pointer}.note{color:#555;font-size:.9rem}#benefits{margin-top:1.5rem;padding-top:1rem;border-top:1px solid #ddd}${BENEFITS_STYLE}</style>
</head><body><main>
${logo ? `<img id="seller-logo" src="${escapeHtml(logo)}" alt="" height="48">\n` : ''}<h1>${escapeHtml(r.organization_name)}</h1>
${r.organization_address?.length ? `<address id="seller-address">${r.organization_address.map(escapeHtml).join('<br>')}</address>\n` : ''}${r.organization_vat_number ? `<p id="seller-vat">VAT ${escapeHtml(r.organization_vat_number)}</p>\n` : ''}<p id="invoice-number">${escapeHtml(invoiceLabel(r))}, paid on ${escapeHtml(formatDate(r.paid_at))} with ${escapeHtml(r.card.brand)} ending in ${escapeHtml(r.card.last4)}.</p>
${r.period ? `<p id="period">${escapeHtml(periodLine(r.period))}</p>\n` : ''}<table><tbody>${rows}</tbody><tfoot>${totals}</tfoot></table>
${buyer}${statement}<p><a id="pdf" href="/receipts/${escapeHtml(doc.token)}/invoice.pdf" download="invoice-${r.invoice_number}.pdf">Download the invoice (PDF)</a></p>
${delivered ? benefitsSection(delivered.benefits, { pending: delivered.pending }) : ''}${refundsSection(doc, notes)}${subscriptionSection(doc.token, standing)}</main></body></html>`;
}

/**
 * The buyer's receipt page and the invoice PDF, reached only through the unguessable link in the
 * receipt email (`/receipts/<token>`): no sign-in, and the token names nothing else.
 */
export async function receiptRoutes(app: FastifyInstance, opts: { services: Services }): Promise<void> {
  const { services } = opts;
  const r = app.withTypeProvider<ZodTypeProvider>();

  // A refusal (an unknown or malformed token, a cross-site form) answers from the error handler,
  // past the routes' own headers: its URL holds the token just the same.
  app.addHook('onSend', async (_request, reply, payload) => {
    if (reply.statusCode >= 400) privateHeaders(reply).header('referrer-policy', 'no-referrer');
    return payload;
  });

  r.get('/receipts/:token', { config: { secretPath: true }, schema: { summary: 'Receipt page (HTML) of a paid invoice, by the link in the receipt email', params: Params } }, async (request, reply) => {
    const doc = await receiptByToken(services, request.params.token);
    const nonce = randomBytes(18).toString('base64url');
    return privateHeaders(reply)
      // Its forms (a subscription's cancel) need the Origin header, which no-referrer turns to `null`.
      .header('referrer-policy', 'same-origin')
      .header('content-security-policy', `default-src 'none'; style-src 'nonce-${nonce}'; img-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'`)
      .type('text/html; charset=utf-8')
      // Its files' links are made now, for 15 minutes: this page is the buyer's lasting way to them.
      .send(receiptPage(doc, nonce, await standingOf(services, doc), await creditNotesOf(services, doc), await purchaseBenefits(services, doc.organization_id, doc.receipt.invoice_id)));
  });

  // The receipt's forms send no fields: any form body is taken and ignored.
  app.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: 1024 }, (_request, _body, done) => done(null, {}));

  /** Cancels at period end, or takes that back, for the buyer holding the receipt link; then shows the receipt again. */
  const subscriptionAction = (act: 'cancel' | 'reactivate') => async (request: FastifyRequest<{ Params: { token: string } }>, reply: FastifyReply) => {
    // The token is the credential, but only the receipt page's own form may use it.
    if (crossSite(services, request)) throw new HttpError(403, 'csrf_failed', 'The request failed the CSRF check.');
    const doc = await receiptByToken(services, request.params.token);
    const id = doc.receipt.subscription_id;
    if (!id) throw notFound('Subscription');
    const ctx = commandContext(services, request, doc.organization_id);
    try {
      if (act === 'cancel') await cancelSubscription(ctx, id, { atPeriodEnd: true, refund: 'none', requestedBy: 'customer' });
      else await reactivateSubscription(ctx, id);
    } catch (error) {
      // An ended or incomplete subscription: the receipt page says where it stands.
      if (!(error instanceof DomainError)) throw error;
    }
    return privateHeaders(reply).redirect(`/receipts/${doc.token}`, 303);
  };
  const actionSchema = (summary: string) => ({ config: { secretPath: true }, schema: { summary, params: Params } });
  r.post('/receipts/:token/cancel', actionSchema("Cancel the receipt's subscription at the end of its period (the receipt page's form)"), subscriptionAction('cancel'));
  r.post('/receipts/:token/reactivate', actionSchema("Keep the receipt's subscription after a cancellation at period end (the receipt page's form)"), subscriptionAction('reactivate'));

  r.get(
    '/receipts/:token/credit_notes/:id/pdf',
    {
      config: { secretPath: true },
      schema: { summary: "A credit note of the receipt's invoice as a PDF, by the receipt link", params: Params.extend({ id: z.string().regex(/^cn_[A-Za-z0-9]{1,64}$/, 'must be a credit note id (cn_…)') }) },
    },
    async (request, reply) => {
      const doc = await receiptByToken(services, request.params.token);
      const note = (await creditNotesOf(services, doc)).find((n) => n.id === request.params.id);
      if (!note) throw notFound('Credit note');
      const header = await sellerHeader(services, doc.organization_id);
      const pdf = await creditNotePdf(presentCreditNote(note), { name: doc.receipt.organization_name, address: doc.receipt.organization_address ?? [] }, header?.draw);
      return privateHeaders(reply).type('application/pdf').header('content-disposition', `inline; filename="credit-note-${note.number}.pdf"`).send(pdf);
    },
  );

  /**
   * The thank-you page's way to the receipt, so the buyer reaches it without email: the invoice
   * and the session it was paid in (both only in that page's hands), within a day of the payment.
   * The receipt is queued here if the outbox has not done it yet (it is queued once either way).
   */
  r.get(
    '/receipts/for-invoice/:invoice',
    {
      config: { secretPath: true },
      schema: {
        summary: "Redirects to the receipt page of an invoice just paid (the checkout thank-you page's link)",
        params: z.object({ invoice: z.string().regex(/^in_[A-Za-z0-9_-]{1,64}$/, 'must be an invoice id (in_…)') }),
        querystring: z.object({ session: z.string().regex(/^cs_[A-Za-z0-9_-]{1,64}$/, 'must be a checkout session id (cs_…)') }),
      },
    },
    async (request, reply) => {
      privateHeaders(reply);
      const events = await services.store.readStream(`invoice-${request.params.invoice}`);
      const invoice = fold(invoiceDecider, events as unknown as InvoiceEvent[]);
      const paid = events.find((e) => e.type === 'InvoicePaid');
      const now = Math.floor(services.clock() / 1000);
      if (invoice.status === 'none' || !paid || invoice.invoice.session_id !== request.query.session || (paid.data as { paid_at: number }).paid_at < now - THANK_YOU_LINK_SECONDS) {
        throw notFound('Receipt');
      }
      let doc = await services.readStore.get<ReceiptDoc>(RECEIPTS, request.params.invoice);
      if (!doc) {
        await queueReceipt(services, paid);
        const state = fold(receiptDecider, (await services.store.readStream(receiptStream(request.params.invoice))) as unknown as ReceiptEvent[]);
        if (state.status === 'none') throw notFound('Receipt');
        doc = { token: state.token } as ReceiptDoc;
      }
      return reply.redirect(`/receipts/${doc.token}`, 303);
    },
  );

  r.get('/receipts/:token/invoice.pdf', { config: { secretPath: true }, schema: { summary: 'The paid invoice as a PDF, by the link in the receipt email', params: Params } }, async (request, reply) => {
    const doc = await receiptByToken(services, request.params.token);
    const pdf = await receiptPdf(doc.receipt, await sellerLogoBytes(services, sellerOfReceipt(doc.receipt)));
    return privateHeaders(reply)
      .type('application/pdf')
      .header('content-disposition', `inline; filename="invoice-${doc.receipt.invoice_number}.pdf"`)
      .send(pdf);
  });
}
