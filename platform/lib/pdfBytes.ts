import type { Readable } from 'node:stream';
import type PDFDocument from 'pdfkit';

export type PdfDocument = InstanceType<typeof PDFDocument>;

/** A pdfkit document; pdfkit and its font machinery load with the first PDF, not with every start of the service or the CLI. */
export async function newPdfDocument(options: ConstructorParameters<typeof PDFDocument>[0]): Promise<PdfDocument> {
  const { default: Pdf } = await import('pdfkit');
  return new Pdf(options);
}

/** The whole PDF a pdfkit document writes, once it ends. Call before drawing: pdfkit streams as it draws. */
export function pdfBytes(doc: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
