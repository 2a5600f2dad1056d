/** The portal's accent when the seller has set no brand colour. */
export const DEFAULT_BRAND = '#1d4ed8';
const NEAR_BLACK = '#111111';

/** WCAG 2 relative luminance of a `#rrggbb` colour (0 black … 1 white). */
export function relativeLuminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}

/** WCAG 2 contrast ratio of two `#rrggbb` colours (1 … 21). */
export function contrastRatio(a: string, b: string): number {
  const [hi, lo] = [relativeLuminance(a), relativeLuminance(b)].sort((x, y) => y - x) as [number, number];
  return (hi + 0.05) / (lo + 0.05);
}

/**
 * The colours the portal's pages use: the accent (buttons, header line), the text on it (white or
 * near-black, whichever contrasts more), and the colour of links and outlined buttons on white
 * (the accent when it is readable there at 4.5:1, near-black otherwise).
 */
export function brandPalette(brandColor: string | null | undefined): { accent: string; onAccent: string; link: string } {
  // Anything but #rrggbb is never written into a page's CSS.
  const accent = typeof brandColor === 'string' && /^#[0-9a-fA-F]{6}$/.test(brandColor) ? brandColor.toLowerCase() : DEFAULT_BRAND;
  const onAccent = contrastRatio(accent, '#ffffff') >= contrastRatio(accent, NEAR_BLACK) ? '#ffffff' : NEAR_BLACK;
  const link = contrastRatio(accent, '#ffffff') >= 4.5 ? accent : NEAR_BLACK;
  return { accent, onAccent, link };
}
