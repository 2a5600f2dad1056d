/**
 * The seller as buyers see it on every email, receipt, invoice and credit note: the
 * organization's name, postal address, VAT number and logo.
 */
export type Seller = {
  organization_id: string;
  name: string;
  /** Postal address as printed lines. */
  address: string[];
  vat_number: string | null;
  /** The logo's hash and type; its bytes stay in the organization's stream (served at /logos/…). */
  logo: { sha256: string; content_type: 'image/png' | 'image/jpeg' } | null;
  /** `#rrggbb`: the accent line atop HTML emails (absent or null: none). */
  brand_color?: string | null;
};

const escapeHtml = (value: unknown): string =>
  String(value ?? '').replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The path of the seller's logo (as modules/identity serves it), or null. */
export const sellerLogoPath = (seller: Seller): string | null =>
  seller.logo ? `/logos/${seller.organization_id}/${seller.logo.sha256.slice(0, 32)}.${seller.logo.content_type === 'image/png' ? 'png' : 'jpg'}` : null;

/** Name, address lines and `VAT NL123…`: the seller's block in plain text. */
export const sellerLines = (seller: Seller): string[] => [seller.name, ...seller.address, ...(seller.vat_number ? [`VAT ${seller.vat_number}`] : [])].filter((l) => l !== '');

/** The top of an HTML email or page: the logo (when there is one) and the seller's name. */
export function sellerHtmlHeader(seller: Seller, baseUrl: string): string {
  const path = sellerLogoPath(seller);
  const logo = path ? `<img src="${escapeHtml(`${baseUrl}${path}`)}" alt="${escapeHtml(seller.name)}" height="48" style="max-height:48px;max-width:200px;display:block;margin-bottom:8px">` : '';
  return `<div id="seller">${logo}<strong style="font-size:18px">${escapeHtml(seller.name)}</strong></div>`;
}

/** The foot of an HTML email: the seller's name, address and VAT number. */
export const sellerHtmlFooter = (seller: Seller): string =>
  `<p style="color:#555;font-size:13px">${sellerLines(seller).map(escapeHtml).join('<br>')}</p>`;

/** Only `#rrggbb` goes into the style attribute. */
const accentLine = (seller: Seller): string =>
  typeof seller.brand_color === 'string' && /^#[0-9a-fA-F]{6}$/.test(seller.brand_color) ? `;border-top:4px solid ${seller.brand_color};padding-top:12px` : '';

/**
 * A buyer email in both parts, framed the same way for every kind: the seller's logo and name on
 * top, their name, address and VAT number at the foot. `text` and `html` are the message's body.
 */
export function framedEmail(seller: Seller, baseUrl: string, body: { text: string; html: string }): { text: string; html: string } {
  // A text already signed with the name and address (as the dunning emails are) is signed once.
  const signature = [seller.name, ...seller.address].join('\n');
  const text = body.text.trimEnd();
  const unsigned = seller.name && text.endsWith(`\n${signature}`) ? text.slice(0, -signature.length).trimEnd() : text;
  return {
    text: [unsigned, '', ...sellerLines(seller)].join('\n'),
    html:
      `<!doctype html><html><body style="font:15px/1.5 system-ui,-apple-system,Segoe UI,sans-serif;color:#111;max-width:36rem${accentLine(seller)}">` +
      `${sellerHtmlHeader(seller, baseUrl)}${body.html}${sellerHtmlFooter(seller)}</body></html>`,
  };
}

/** Plain text as HTML paragraphs (blank lines part them), escaped, links kept clickable. */
export function textToHtml(text: string): string {
  return text
    .split(/\n{2,}/)
    .map((paragraph) => {
      const escaped = escapeHtml(paragraph).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`);
      return `<p>${escaped.replace(/\n/g, '<br>')}</p>`;
    })
    .join('');
}
