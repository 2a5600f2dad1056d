import type PDFDocument from 'pdfkit';
import type { Services } from '../../platform/runtime/index.ts';
import { addressLines, loadOrganization, organizationLogo } from '../identity/index.ts';
import type { Seller } from './domain/seller.ts';

type Pdf = InstanceType<typeof PDFDocument>;

/** The seller as the organization stands now (null: no such organization). */
export async function loadSeller(services: Services, organizationId: string): Promise<Seller | null> {
  const org = await loadOrganization(services.store, organizationId);
  if (!org) return null;
  return {
    organization_id: org.id,
    name: org.name,
    address: addressLines(org.address),
    vat_number: org.vat_number,
    brand_color: org.brand_color,
    logo: org.logo ? { sha256: org.logo.sha256, content_type: org.logo.content_type } : null,
  };
}

/** The bytes of the seller's logo, from the organization's stream (any logo it has had). */
export async function sellerLogoBytes(services: Services, seller: Seller): Promise<Buffer | null> {
  if (!seller.logo) return null;
  const logo = await organizationLogo(services.store, seller.organization_id, seller.logo.sha256);
  return logo ? Buffer.from(logo.data, 'base64') : null;
}

/**
 * Draws the seller's block at the top of a PDF (invoice, credit note): the logo, the name, the
 * postal address and the VAT number. A logo pdfkit cannot read (an unusual PNG) is left out.
 */
export function drawSellerHeader(doc: Pdf, seller: Seller, logo: Buffer | null): void {
  if (logo) {
    try {
      doc.image(logo, { fit: [160, 48] });
      doc.moveDown(0.5);
    } catch {
      // The name below still says whose document it is.
    }
  }
  doc.font('Helvetica-Bold').fontSize(18).fillColor('#000000').text(seller.name);
  const lines = [...seller.address, ...(seller.vat_number ? [`VAT ${seller.vat_number}`] : [])];
  if (lines.length > 0) {
    doc.font('Helvetica').fontSize(10).fillColor('#444444');
    for (const line of lines) doc.text(line);
    doc.fillColor('#000000');
  }
}

/**
 * For another PDF of the organization (a credit note): the seller as it stands now, ready to draw
 * with `draw(doc)` at the top of the first page. Null when the organization does not exist.
 */
export async function sellerHeader(services: Services, organizationId: string): Promise<{ seller: Seller; draw: (doc: Pdf) => void } | null> {
  const seller = await loadSeller(services, organizationId);
  if (!seller) return null;
  const logo = await sellerLogoBytes(services, seller);
  return { seller, draw: (doc) => drawSellerHeader(doc, seller, logo) };
}
