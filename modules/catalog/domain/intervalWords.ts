const UNITS: Array<[RegExp, string]> = [
  [/(\d+)Y/, 'year'],
  [/(\d+)M(?![^T]*T)/, 'month'],
  [/(\d+)W/, 'week'],
  [/(\d+)D/, 'day'],
];

/**
 * How a buyer reads a plan's renew_interval: `P1M` → "per month", `P3M` → "every 3 months",
 * `P1Y6M` → "every 1 year and 6 months". Null for what is not a whole-day duration (PT12H and
 * the like: no plan people buy renews by the hour).
 */
export function intervalWords(iso: string | null | undefined): string | null {
  if (!iso) return null;
  const match = /^P((?:\d+[YMWD])+)$/.exec(iso);
  if (!match) return null;
  const parts = UNITS.flatMap(([pattern, unit]) => {
    const n = Number(pattern.exec(match[1]!)?.[1] ?? 0);
    return n > 0 ? [[n, unit] as const] : [];
  });
  if (parts.length === 0) return null;
  if (parts.length === 1 && parts[0]![0] === 1) return `per ${parts[0]![1]}`;
  return `every ${parts.map(([n, unit]) => `${n} ${unit}${n === 1 ? '' : 's'}`).join(' and ')}`;
}
