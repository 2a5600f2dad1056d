import { useEffect, useRef } from 'preact/hooks';
import uPlot from 'uplot';
import { formatMoney } from '../format.ts';
import { LOCALE } from '../locale.ts';

export type ChartDay = { date: string; completed: number; amount: number };

const label = (date: string) => {
  const [, m, d] = date.split('-');
  return `${Number(d)} ${new Date(Date.UTC(2000, Number(m) - 1, 1)).toLocaleString(LOCALE, { month: 'short', timeZone: 'UTC' })}`;
};

/**
 * Sales per day: the amount as bars, the count as a line, the numbers in a table for screen
 * readers. The x axis is the days' index, so the browser's own timezone plays no part.
 */
export function SalesChart({ days, currency }: { days: ChartDay[]; currency: string }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const width = () => Math.max(280, el.clientWidth);
    const css = getComputedStyle(document.documentElement);
    const accent = css.getPropertyValue('--accent').trim() || '#4f46e5';
    const grid = css.getPropertyValue('--border').trim() || '#e3e6eb';
    const text = css.getPropertyValue('--text-2').trim() || '#4b5563';
    const money = (minor: number) => formatMoney(Math.round(minor), currency).replace(/\.00$/, '');
    const axis = { stroke: text, grid: { stroke: grid, width: 1 }, ticks: { stroke: grid, width: 1 }, font: '12px system-ui, sans-serif' };
    const plot = new uPlot(
      {
        width: width(),
        height: 240,
        legend: { show: false },
        cursor: { drag: { x: false, y: false }, points: { show: false } },
        // The amount axis spans at least 10.00 (minor units): an empty month reads $0 … $10, not $0.01 three times.
        scales: { x: { time: false, range: [-0.6, days.length - 0.4] }, amount: { range: (_u, _min, max) => [0, Math.max(max, 1000) * 1.1] }, count: { range: (_u, _min, max) => [0, Math.max(max, 1) * 1.1] } },
        axes: [
          { ...axis, values: (_u, splits) => splits.map((i) => (Number.isInteger(i) && days[i] ? label(days[i]!.date) : '')), space: 60 },
          { ...axis, scale: 'amount', values: (_u, splits) => splits.map(money), size: 70 },
          { ...axis, scale: 'count', side: 1, grid: { show: false }, values: (_u, splits) => splits.map((v) => (Number.isInteger(v) ? String(v) : '')), size: 40 },
        ],
        series: [
          {},
          { label: 'Amount', scale: 'amount', fill: `${accent}cc`, stroke: accent, width: 0, paths: uPlot.paths.bars!({ size: [0.7, 40] }), points: { show: false } },
          { label: 'Sales', scale: 'count', stroke: '#0f766e', width: 2, points: { show: true, size: 5, fill: '#0f766e' } },
        ],
      },
      [days.map((_, i) => i), days.map((d) => d.amount), days.map((d) => d.completed)],
      el,
    );
    const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 240 }));
    observer.observe(el);
    return () => {
      observer.disconnect();
      plot.destroy();
    };
  }, [days, currency]);

  const total = days.reduce((s, d) => s + d.amount, 0);
  const count = days.reduce((s, d) => s + d.completed, 0);
  return (
    <figure class="chart">
      <div ref={box} class="chart-canvas" role="img" aria-label={`Sales per day over the last ${days.length} days: ${count} sales, ${formatMoney(total, currency)} in all.`} />
      <figcaption class="chart-legend">
        <span class="legend-bar" aria-hidden="true" /> Amount ({currency}) <span class="legend-line" aria-hidden="true" /> Number of sales
      </figcaption>
      <details class="chart-table">
        <summary>Show as a table</summary>
        <table class="table">
          <caption class="sr-only">Sales per day</caption>
          <thead>
            <tr>
              <th scope="col">Day</th>
              <th scope="col" class="num">
                Sales
              </th>
              <th scope="col" class="num">
                Amount
              </th>
            </tr>
          </thead>
          <tbody>
            {days.map((d) => (
              <tr key={d.date}>
                <td>{d.date}</td>
                <td class="num">{d.completed}</td>
                <td class="num">{formatMoney(d.amount, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  );
}
