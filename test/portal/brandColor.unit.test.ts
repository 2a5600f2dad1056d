import { describe, expect, it } from 'vitest';
import { brandPalette, contrastRatio, relativeLuminance } from '../../modules/portal/domain/brandColor.ts';

describe('the portal brand palette', () => {
  it('measures relative luminance and contrast as WCAG 2 defines them', () => {
    expect(relativeLuminance('#000000')).toBe(0);
    expect(relativeLuminance('#ffffff')).toBeCloseTo(1, 10);
    expect(relativeLuminance('#777777')).toBeCloseTo(0.1845, 3);
    expect(contrastRatio('#ffffff', '#000000')).toBeCloseTo(21, 10);
    expect(contrastRatio('#777777', '#ffffff')).toBeCloseTo(4.48, 2);
  });

  it('puts white on dark colours and near-black on light ones, and keeps links readable on white', () => {
    expect(brandPalette('#1d4ed8')).toEqual({ accent: '#1d4ed8', onAccent: '#ffffff', link: '#1d4ed8' });
    expect(brandPalette('#FFD500')).toEqual({ accent: '#ffd500', onAccent: '#111111', link: '#111111' });
    expect(brandPalette('#ffffff')).toEqual({ accent: '#ffffff', onAccent: '#111111', link: '#111111' });
    expect(brandPalette('#000000')).toEqual({ accent: '#000000', onAccent: '#ffffff', link: '#000000' });
    // Mid grey: #777 gives white 4.48:1 and near-black 4.2:1, so white; as a link on white it is just under 4.5.
    expect(brandPalette('#777777')).toEqual({ accent: '#777777', onAccent: '#ffffff', link: '#111111' });
  });

  it('falls back to the default blue for none or anything but #rrggbb', () => {
    for (const value of [null, undefined, '', 'red', '#fff', '#ffd500;}body{display:none']) {
      expect(brandPalette(value).accent).toBe('#1d4ed8');
    }
  });
});
