import type { ComponentChildren } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import type { PageMeta } from '../api.ts';
import { LOCALE } from '../locale.ts';
import { setQuery } from '../router.tsx';
import type { Loaded } from '../useApi.ts';
import { ListStatus } from './ListFilter.tsx';

type Page<T> = { data: T[]; meta: PageMeta };

export type Column<T> = {
  header: ComponentChildren;
  cell: (row: T) => ComponentChildren;
  align?: 'left' | 'right';
  /** Hidden on phones (the table keeps its most telling columns). */
  wide?: boolean;
};

/** A list as a table; `empty` shows when there is nothing, `rowHref` links the first cell to the row's page. */
type TableProps<T> = {
  caption: string;
  columns: Column<T>[];
  /** Nothing is drawn till they are there. */
  rows: T[] | undefined;
  rowKey: (row: T) => string;
  empty?: ComponentChildren;
  busy?: boolean;
};

export function Table<T>({ caption, columns, rows, rowKey, empty, busy = false }: TableProps<T>) {
  const more = useSidewaysOverflow(rows?.length ?? -1);
  if (!rows) return null;
  if (!rows.length && empty) return <>{empty}</>;
  const scrolls = more.left || more.right;
  return (
    <div class={`table-wrap${more.left ? ' more-left' : ''}${more.right ? ' more-right' : ''}`} aria-busy={busy || undefined}>
      {/* A table wider than the screen scrolls sideways, by touch or, once focused, by the arrow keys. */}
      <div class="table-scroller" ref={more.ref} tabIndex={scrolls ? 0 : undefined} role={scrolls ? 'region' : undefined} aria-label={scrolls ? `${caption} (scrolls sideways)` : undefined}>
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
      {/* The cue that more columns lie to a side: a shade and an arrow at that edge. */}
      {more.left && <span class="table-cue table-cue-left" aria-hidden="true">‹</span>}
      {more.right && <span class="table-cue table-cue-right" aria-hidden="true">›</span>}
    </div>
  );
}

/** Whether the scroller's content reaches past its left and right edges, kept as it scrolls and resizes. */
function useSidewaysOverflow(rowCount: number) {
  const ref = useRef<HTMLDivElement>(null);
  const [more, setMore] = useState({ left: false, right: false });
  useEffect(() => {
    const el = ref.current;
    if (!el) return;
    const update = () => {
      const max = el.scrollWidth - el.clientWidth;
      const next = { left: el.scrollLeft > 1, right: el.scrollLeft < max - 1 };
      setMore((prev) => (prev.left === next.left && prev.right === next.right ? prev : next));
    };
    update();
    el.addEventListener('scroll', update, { passive: true });
    const resize = new ResizeObserver(update);
    resize.observe(el);
    if (el.firstElementChild) resize.observe(el.firstElementChild);
    return () => {
      el.removeEventListener('scroll', update);
      resize.disconnect();
    };
  }, [rowCount]);
  return { ref, ...more };
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

/**
 * A page of a list as a table over its pager, which moves `pageKey` in the URL; nothing till it
 * arrives. Given the request as `list`, its error or that it loads shows first.
 */
export function PagedTable<T>({ list, page = list?.data, pageKey = 'page', pages, busy = list?.loading, ...table }: Omit<TableProps<T>, 'rows'> & { list?: Loaded<Page<T>>; page?: Page<T> | null; pageKey?: string; pages?: string }) {
  return (
    <>
      {list && <ListStatus list={list} />}
      {page && <Table {...table} busy={busy} rows={page.data} />}
      {page && <Pagination meta={page.meta} onPage={(p) => setQuery({ [pageKey]: p })} label={pages} />}
    </>
  );
}
