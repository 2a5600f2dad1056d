/**
 * The locale every Intl formatter of the dashboard uses: the browser's first language that Intl
 * accepts, else English. Chromium started with LANG=C reports `en-US@posix`, a tag Intl refuses
 * (RangeError), and formatters made with the default locale then throw and blank the page.
 */
export function pickLocale(candidates: readonly (string | undefined)[]): string {
  for (const tag of candidates) {
    if (!tag) continue;
    try {
      const [canonical] = Intl.getCanonicalLocales(tag);
      if (canonical) return canonical;
    } catch {
      // Not a BCP 47 tag: try the next.
    }
  }
  return 'en-US';
}

export const LOCALE: string = pickLocale(typeof navigator === 'undefined' ? [] : [...(navigator.languages ?? []), navigator.language]);

/**
 * uPlot formats with `navigator.language` as the module loads: where the browser's own tag is
 * refused, this one (imported first by main.tsx, so evaluated before uPlot) answers LOCALE.
 */
export function shadowRefusedLanguage(nav: Navigator | undefined = typeof navigator === 'undefined' ? undefined : navigator): void {
  if (!nav || pickLocale([nav.language]) === nav.language) return;
  try {
    Object.defineProperty(nav, 'language', { value: LOCALE, configurable: true });
  } catch {
    // A browser that refuses the override keeps its tag; the formatters here use LOCALE anyway.
  }
}
shadowRefusedLanguage();
