import { Readable } from 'node:stream';
import { createBenefit, loadProductBenefits } from '../../modules/benefits/benefitCommands.ts';
import { uploadFile } from '../../modules/files/fileCommands.ts';
import type { CommandContext } from '../../platform/es/index.ts';
import type { FileStore } from '../../platform/files/index.ts';
import { newPdfDocument, pdfBytes } from '../../platform/lib/index.ts';

/** The zine of the first-sale walkthrough (examples/first-sale.json): the demo gives it its PDF. */
export const ZINE_TITLE = 'Night photography zine';
export const ZINE_FILENAME = 'night-photography-zine.pdf';
export const APP_KEY_PREFIX = 'DARK';

/** A small PDF of the zine: a cover with its title and a few pages of "photographs". */
export async function zinePdf(title = ZINE_TITLE, pages = 4): Promise<Buffer> {
  // A fixed creation date: the same bytes (and checksum) on every run.
  const doc = await newPdfDocument({ size: 'A5', margin: 40, info: { Title: title, Author: 'Demo Store', CreationDate: new Date(Date.UTC(2026, 0, 1)) } });
  const done = pdfBytes(doc);
  doc.rect(0, 0, doc.page.width, doc.page.height).fill('#0b1020');
  doc.fillColor('#f8fafc').fontSize(28).text(title, 40, 180, { width: doc.page.width - 80, align: 'center' });
  doc.fontSize(12).fillColor('#94a3b8').text('Long exposures after dark', { align: 'center' });
  for (let page = 1; page <= pages; page++) {
    doc.addPage();
    const shade = 20 + page * 25;
    doc.rect(40, 60, doc.page.width - 80, doc.page.height - 180).fill(`rgb(${shade}, ${shade}, ${shade + 30})`);
    doc.fillColor('#111827').fontSize(11).text(`${title} · plate ${page}`, 40, doc.page.height - 100, { width: doc.page.width - 80, align: 'center' });
  }
  doc.end();
  return done;
}

/** The product's live (not deleted) benefit of this type, when the demo made one before. */
async function existing(cmd: CommandContext, productId: string, type: 'file' | 'license_key'): Promise<string | null> {
  const state = await loadProductBenefits(cmd, productId);
  return Object.values(state.benefits).find((b) => !b.deleted && b.type === type)?.id ?? null;
}

/** The zine's PDF benefit and the app's license key benefit; a second run finds them and adds nothing. */
export async function demoBenefits(cmd: CommandContext, files: FileStore, organizationId: string, products: { zine: string; app: string }): Promise<{ zine: string; app: string }> {
  let zine = await existing(cmd, products.zine, 'file');
  if (!zine) {
    const pdf = await zinePdf();
    const file = await uploadFile(cmd, files, { organizationId, filename: ZINE_FILENAME, type: 'application/pdf', source: Readable.from([pdf]) });
    zine = (await createBenefit(cmd, { organizationId, product: products.zine, type: 'file', description: `${ZINE_TITLE} (PDF)`, properties: { files: [file.id] } })).benefit.id;
  }
  let app = await existing(cmd, products.app, 'license_key');
  if (!app) {
    app = (
      await createBenefit(cmd, {
        organizationId,
        product: products.app,
        type: 'license_key',
        description: 'Darkroom license key',
        properties: { prefix: APP_KEY_PREFIX, activation_limit: 3, expires_after_days: null, bound_to: 'perpetual' },
      })
    ).benefit.id;
  }
  return { zine, app };
}
