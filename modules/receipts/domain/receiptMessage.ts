import { formatMoney } from '../../../platform/domain/index.ts';
import type { ReceiptSnapshot } from './receipt.ts';
import { framedEmail, type Seller } from './seller.ts';
import { receiptFigures, type FigureLine } from './receiptFigures.ts';

/** The seller as the receipt recorded them when it was queued. */
export const sellerOfReceipt = (r: ReceiptSnapshot): Seller => ({
  organization_id: r.organization_id,
  name: r.organization_name,
  address: r.organization_address ?? [],
  vat_number: r.organization_vat_number ?? null,
  logo: r.organization_logo ?? null,
  brand_color: r.organization_brand_color ?? null,
});

/** Money on receipts and in emails: the shared format, in English so every receipt reads the same. */
export { formatMoney };

/** `2026-11-24`, in UTC. */
export const formatDate = (unixSeconds: number): string => new Date(unixSeconds * 1000).toISOString().slice(0, 10);

const DAY = new Intl.DateTimeFormat('en-GB', { day: 'numeric', month: 'short', year: 'numeric', timeZone: 'UTC' });

/** `27 Nov 2026`, in UTC: a day as a buyer reads it. */
export const formatDay = (unixSeconds: number): string => DAY.format(new Date(unixSeconds * 1000));

/** `27 Nov 2026 – 27 Dec 2026`: the period a subscription's invoice pays. */
export const formatPeriod = (period: { start: number; end: number }): string => `${formatDay(period.start)} – ${formatDay(period.end)}`;

/** `For 27 Nov 2026 – 27 Dec 2026`: what a subscription's receipt pays. */
export const periodLine = (period: { start: number; end: number }): string => `For ${formatPeriod(period)}`;

export const invoiceLabel = (r: ReceiptSnapshot): string => `Invoice #${r.invoice_number}`;

export type ReceiptEmail = { subject: string; text: string; html: string };

/**
 * What the purchase delivered, as the email names it: keys in plain, files by name only (their
 * links last 15 minutes, so the email sends the buyer to the receipt page, which makes fresh
 * ones). `pending`: grants still being made when the email left.
 */
export type ReceiptBenefits = {
  keys: Array<{ description: string; key: string }>;
  files: Array<{ description: string; filenames: string[] }>;
  pending: boolean;
};

function benefitsText(b: ReceiptBenefits, receiptUrl: string): string[] {
  const out: string[] = [];
  if (b.keys.length) out.push('', b.keys.length === 1 ? 'Your license key:' : 'Your license keys:', ...b.keys.map((k) => `  ${k.description}: ${k.key}`));
  if (b.files.length) {
    out.push('', 'Your downloads:', ...b.files.map((f) => `  ${f.description}: ${f.filenames.join(', ')}`), `Download them from your receipt page (fresh links each time you open it): ${receiptUrl}`);
  }
  if (b.pending) out.push('', `Your downloads and license keys are being prepared: they will be on your receipt page: ${receiptUrl}`);
  return out;
}

function benefitsHtml(b: ReceiptBenefits, receiptUrl: string): string {
  let html = '';
  if (b.keys.length) {
    html +=
      `<h3>${b.keys.length === 1 ? 'Your license key' : 'Your license keys'}</h3><ul>` +
      b.keys.map((k) => `<li>${escapeHtml(k.description)}: <code style="font-size:1.05em;font-weight:600">${escapeHtml(k.key)}</code></li>`).join('') +
      '</ul>';
  }
  if (b.files.length) {
    html +=
      '<h3>Your downloads</h3><ul>' +
      b.files.map((f) => `<li>${escapeHtml(f.description)}: ${f.filenames.map(escapeHtml).join(', ')}</li>`).join('') +
      `</ul><p><a href="${escapeHtml(receiptUrl)}">Download your files from your receipt page</a> (fresh links each time you open it)</p>`;
  }
  if (b.pending) html += `<p>Your downloads and license keys are being prepared: they will be on <a href="${escapeHtml(receiptUrl)}">your receipt page</a>.</p>`;
  return html;
}

const escapeHtml = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** ` (Discount -€2.00; VAT 19% €3.42)`: what a line's price became, when it had a discount or a tax. */
export const lineNotes = (l: FigureLine): string => {
  const notes = [l.discount, l.tax].filter((n): n is string => n !== null);
  return notes.length ? ` (${notes.join('; ')})` : '';
};

const lineNotesHtml = (l: FigureLine): string => {
  const notes = [l.discount, l.tax].filter((n): n is string => n !== null);
  return notes.length ? `<br><small>${notes.map(escapeHtml).join('; ')}</small>` : '';
};

/**
 * The receipt email: invoice number, lines (with their discount and VAT), subtotal, discount,
 * VAT and total, the buyer's tax details, and the link to the receipt page (and its PDF),
 * framed by the seller's logo, name, address and VAT number (`baseUrl` makes the logo's URL);
 * with what the purchase delivered, when it delivered something.
 */
export function receiptEmail(r: ReceiptSnapshot, receiptUrl: string, baseUrl: string, benefits: ReceiptBenefits | null = null): ReceiptEmail {
  const subject = `Your receipt from ${r.organization_name}: ${invoiceLabel(r)}`;
  const f = receiptFigures(r);
  const thanks = r.period ? 'Thank you for your payment' : 'Thank you for your purchase';
  const text = [
    `${thanks}${r.buyer_name ? `, ${r.buyer_name}` : ''}.`,
    '',
    `${invoiceLabel(r)}, paid on ${formatDate(r.paid_at)} with ${r.card.brand} ending in ${r.card.last4}.`,
    ...(r.period ? [periodLine(r.period)] : []),
    '',
    ...f.lines.map((l) => `  ${l.name}: ${l.amount}${lineNotes(l)}`),
    ...f.totals.map((t) => `  ${t.label}: ${t.amount}`),
    ...(f.buyer.length ? ['', `Billed to: ${f.buyer.join(', ')}`] : []),
    ...(f.statement ? ['', f.statement] : []),
    ...(benefits ? benefitsText(benefits, receiptUrl) : []),
    '',
    `Your receipt and the invoice as a PDF: ${receiptUrl}`,
    ...(r.subscription_id ? [`To cancel your subscription (at the end of the period paid for): ${receiptUrl}`] : []),
  ].join('\n');
  const rows = f.lines.map((l) => `<tr><td>${escapeHtml(l.name)}${lineNotesHtml(l)}</td><td align="right">${escapeHtml(l.amount)}</td></tr>`).join('');
  const totals = f.totals
    .map((t) => (t.id === 'total' ? `<tr><th align="left">${escapeHtml(t.label)}</th><th align="right">${escapeHtml(t.amount)}</th></tr>` : `<tr><td>${escapeHtml(t.label)}</td><td align="right">${escapeHtml(t.amount)}</td></tr>`))
    .join('');
  const html =
    `<p>${thanks}${r.buyer_name ? `, ${escapeHtml(r.buyer_name)}` : ''}.</p>` +
    `<p>${escapeHtml(invoiceLabel(r))}, paid on ${escapeHtml(formatDate(r.paid_at))} with ${escapeHtml(r.card.brand)} ending in ${escapeHtml(r.card.last4)}.</p>` +
    (r.period ? `<p>${escapeHtml(periodLine(r.period))}</p>` : '') +
    `<table>${rows}${totals}</table>` +
    (f.buyer.length ? `<p>Billed to: ${f.buyer.map(escapeHtml).join('<br>')}</p>` : '') +
    (f.statement ? `<p><strong>${escapeHtml(f.statement)}</strong></p>` : '') +
    (benefits ? benefitsHtml(benefits, receiptUrl) : '') +
    `<p><a href="${escapeHtml(receiptUrl)}">Your receipt and the invoice as a PDF</a></p>` +
    (r.subscription_id ? `<p><a href="${escapeHtml(receiptUrl)}">Cancel your subscription</a> (at the end of the period paid for)</p>` : '');
  return { subject, ...framedEmail(sellerOfReceipt(r), baseUrl, { text, html }) };
}
