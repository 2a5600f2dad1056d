/**
 * `1.4 MB`: a file's size as a buyer reads it (1024-based). Pure: the checkout page's script and
 * the dashboard bundle this very file, so the thank-you page, the receipt and the seller's
 * screens write sizes alike.
 */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${value >= 10 ? Math.round(value) : value.toFixed(1)} ${units[unit]}`;
}
