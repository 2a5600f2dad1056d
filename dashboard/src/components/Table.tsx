import type { ComponentChildren } from 'preact';
import type { PageMeta } from '../api.ts';
import { LOCALE } from '../locale.ts';

export type Column<T> = {
  header: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  align?: 'left' | 'right';
  /** Hidden on phones (the table keeps its most telling columns). */
  wide?: boolean;
};

/**
 * A list as a table: a caption for screen readers, the header, one row per item. `empty` shows
 * instead when there is nothing (say what to do next); `rowHref` makes the first cell a link to the row's page.
 */
export function Table<T>({
  caption,
  columns,
  rows,
  rowKey,
  empty,
  busy = false,
}: {
  caption: string;
  columns: Column<T>[];
  rows: T[];
  rowKey: (row: T) => string;
  empty?: ComponentChildren;
  busy?: boolean;
}) {
  if (!rows.length && empty) return <>{empty}</>;
  return (
    <div class="table-wrap" aria-busy={busy || undefined}>
      <table class="table">
        <caption class="sr-only">{caption}</caption>
        <thead>
          <tr>
            {columns.map((c, i) => (
              <th key={i} scope="col" class={`${c.align === 'right' ? 'num' : ''}${c.wide ? ' wide' : ''}`}>
                {c.header}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              {columns.map((c, i) => (
                <td key={i} class={`${c.align === 'right' ? 'num' : ''}${c.wide ? ' wide' : ''}`}>
                  {c.cell(row)}
                </td>
              ))}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

/** "1–25 of 1,204" and Previous / Next (the service's Laravel meta). */
export function Pagination({ meta, onPage, label = 'Pages' }: { meta: PageMeta; onPage: (page: number) => void; label?: string }) {
  if (meta.total === 0) return null;
  const n = new Intl.NumberFormat(LOCALE);
  return (
    <nav class="pagination" aria-label={label}>
      <span class="pagination-info">
        {n.format(meta.from ?? 0)}–{n.format(meta.to ?? 0)} of {n.format(meta.total)}
      </span>
      <span class="pagination-buttons">
        <button type="button" class="btn btn-secondary btn-sm" disabled={meta.current_page <= 1} onClick={() => onPage(meta.current_page - 1)}>
          Previous
        </button>
        <span class="pagination-page">
          Page {n.format(meta.current_page)} of {n.format(meta.last_page)}
        </span>
        <button type="button" class="btn btn-secondary btn-sm" disabled={meta.current_page >= meta.last_page} onClick={() => onPage(meta.current_page + 1)}>
          Next
        </button>
      </span>
    </nav>
  );
}
