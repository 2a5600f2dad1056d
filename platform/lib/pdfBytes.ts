import type { Readable } from 'node:stream';

/** The whole PDF a pdfkit document writes, once it ends. Call before drawing: pdfkit streams as it draws. */
export function pdfBytes(doc: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  return new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (chunk: Buffer) => chunks.push(chunk));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
}
