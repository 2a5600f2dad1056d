import { newPdfDocument, pdfBytes } from '../../../platform/lib/index.ts';
import type { ReceiptSnapshot } from '../domain/receipt.ts';
import { formatDate, invoiceLabel, periodLine, sellerOfReceipt } from '../domain/receiptMessage.ts';
import { receiptFigures } from '../domain/receiptFigures.ts';
import { drawSellerHeader } from '../sellerHeader.ts';

/**
 * The paid invoice as a PDF, drawn by pdfkit with its built-in Helvetica (no font files to ship).
 * Helvetica covers Latin-1: a name in another script prints as the font's substitutes.
 */
export async function receiptPdf(r: ReceiptSnapshot, logo: Buffer | null = null): Promise<Buffer> {
  const doc = await newPdfDocument({
    size: 'A4',
    margin: 56,
    info: { Title: `${invoiceLabel(r)}, ${r.organization_name}`, Author: r.organization_name },
  });
  const done = pdfBytes(doc);
  const f = receiptFigures(r);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;

  // The seller's postal address and VAT number under its name, as an invoice must show them.
  drawSellerHeader(doc, sellerOfReceipt(r), logo);
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(12).text(`${invoiceLabel(r)} (paid)`);
  doc.fontSize(10).fillColor('#444444');
  doc.text(`Paid on ${formatDate(r.paid_at)} with ${r.card.brand} ending in ${r.card.last4}`);
  if (r.period) doc.text(periodLine(r.period));
  doc.text(`Billed to ${r.buyer_name ? `${r.buyer_name} <${r.buyer_email}>` : r.buyer_email}`);
  // The buyer's business name, country and VAT number, as a business invoice must show them.
  for (const line of f.buyer) doc.text(line);
  doc.moveDown(1.5).fillColor('#000000').fontSize(11);

  const row = (label: string, amount: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, left, y, { width: width - 120 });
    const after = doc.y;
    doc.text(amount, left + width - 120, y, { width: 120, align: 'right' });
    doc.y = Math.max(after, doc.y) + 4;
  };
  for (const line of f.lines) {
    row(line.name, line.amount);
    const notes = [line.discount, line.tax].filter((n): n is string => n !== null);
    if (notes.length) {
      doc.font('Helvetica').fontSize(9).fillColor('#444444').text(notes.join('; '), left + 12, doc.y - 2, { width: width - 132 });
      doc.fontSize(11).fillColor('#000000');
      doc.y += 4;
    }
  }
  doc.moveTo(left, doc.y).lineTo(left + width, doc.y).strokeColor('#999999').stroke();
  doc.y += 6;
  for (const t of f.totals) row(t.label, t.amount, t.id === 'total');
  if (f.statement) doc.moveDown(1).font('Helvetica-Bold').fontSize(10).text(f.statement, left, doc.y, { width });
  doc.end();
  return done;
}
