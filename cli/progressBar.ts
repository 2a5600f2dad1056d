/** A one-line progress bar on stderr, drawn only on a terminal; silent otherwise. */
export function progressBar(label: string, enabled: boolean): { update(done: number, total: number): void; end(): void } {
  let last = -1;
  return {
    update(done, total) {
      if (!enabled) return;
      const ratio = total > 0 ? Math.min(1, done / total) : 1;
      const percent = Math.floor(ratio * 100);
      if (percent === last) return;
      last = percent;
      const width = 30;
      const filled = Math.round(ratio * width);
      process.stderr.write(`\r${label} [${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${String(percent).padStart(3)}%`);
    },
    end() {
      if (enabled && last >= 0) process.stderr.write('\n');
    },
  };
}
