export { currencyCode, minorUnits } from './minorUnits.ts';
export { parseOfferRef, reservedSlugMessage } from './offerRef.ts';
export { decodeRouteKey, encodeRouteKey } from './routeKeys.ts';
export { deriveKey, generateSigningSecret, type SecretBox, secretBox } from './secretBox.ts';
export { newPdfDocument, pdfBytes, type PdfDocument } from './pdfBytes.ts';
