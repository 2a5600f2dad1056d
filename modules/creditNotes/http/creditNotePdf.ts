import { newPdfDocument, pdfBytes, type PdfDocument } from '../../../platform/lib/index.ts';
import { creditNoteLines, creditNoteSplitLines } from '../domain/creditNoteText.ts';
import type { CreditNoteResource } from '../creditNoteProjection.ts';

/**
 * A credit note as a PDF, drawn as the invoice's is (pdfkit's built-in Helvetica): the seller,
 * its number, the invoice it credits, the amount refunded and why, and what of it was net, tax
 * and discount. `drawSeller` draws the seller's
 * block as the invoice's PDF does (logo, name, address, VAT number); without it, name and address.
 */
export async function creditNotePdf(
  note: CreditNoteResource,
  seller: { name: string; address: readonly string[] },
  drawSeller?: (doc: PdfDocument) => void,
): Promise<Buffer> {
  const text = creditNoteLines(note);
  const doc = await newPdfDocument({ size: 'A4', margin: 56, info: { Title: `${text.title}, ${seller.name}`, Author: seller.name } });
  const done = pdfBytes(doc);
  const left = doc.page.margins.left;
  const width = doc.page.width - left - doc.page.margins.right;
  if (drawSeller) drawSeller(doc);
  else doc.font('Helvetica-Bold').fontSize(18).text(seller.name);
  if (!drawSeller && seller.address.length) {
    doc.font('Helvetica').fontSize(10).fillColor('#444444');
    for (const line of seller.address) doc.text(line);
    doc.fillColor('#000000');
  }
  doc.moveDown(0.5);
  doc.font('Helvetica').fontSize(12).text(text.title);
  doc.fontSize(10).fillColor('#444444');
  doc.text(text.invoice);
  doc.text(text.date);
  if (note.customer?.email) doc.text(`Credited to ${note.customer.name ? `${note.customer.name} <${note.customer.email}>` : note.customer.email}`);
  if (text.reason) doc.text(`Reason: ${text.reason}`);
  doc.moveDown(1.5).fillColor('#000000').fontSize(11);
  const row = (label: string, amount: string, bold = false) => {
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica');
    doc.text(label, left, y, { width: width - 120 });
    const after = doc.y;
    doc.text(amount, left + width - 120, y, { width: 120, align: 'right' });
    doc.y = Math.max(after, doc.y) + 4;
  };
  const split = creditNoteSplitLines(note);
  if (split) {
    for (const line of split.lines) row(line.label, line.amount);
    doc.moveTo(left, doc.y).lineTo(left + width, doc.y).strokeColor('#999999').stroke();
    doc.y += 6;
    for (const line of split.totals) row(line.label, line.amount);
  }
  row('Amount credited', text.amount, true);
  if (split?.statement) doc.moveDown(1).font('Helvetica-Bold').fontSize(10).text(split.statement, left, doc.y, { width });
  doc.end();
  return done;
}
