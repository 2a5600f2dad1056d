import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { setQuery, useLocation } from '../router.tsx';
import type { Loaded } from '../useApi.ts';
import { Button } from './Button.tsx';
import { ErrorNotice, Loading } from './Notice.tsx';

const trimmed = (value: string | undefined) => (value ?? '').trim();

export type UrlFilters<F extends Record<string, string>> = ReturnType<typeof useUrlFilters<F>>;

/**
 * A list's filters, kept in the URL: those applied (`defaults` where the URL has none), the
 * form's draft (reset when the URL changes), and apply and clear, which also set `reset`.
 */
export function useUrlFilters<F extends Record<string, string>>(defaults: F, reset: Record<string, null> = { page: null }) {
  const { query } = useLocation();
  const keys = Object.keys(defaults) as (keyof F & string)[];
  const applied = Object.fromEntries(keys.map((k) => [k, query.get(k) ?? defaults[k]])) as F;
  const [form, setForm] = useState(applied);
  useEffect(() => setForm(applied), Object.values(applied));
  return {
    applied,
    form,
    /** The draft's setter of one field, for an <Input onValue>. */
    set: (key: keyof F) => (value: string) => setForm({ ...form, [key]: value }),
    filtered: keys.some((k) => applied[k] !== defaults[k]),
    // Values go trimmed; a default stays out of the URL.
    apply: () => setQuery({ ...Object.fromEntries(keys.map((k) => [k, trimmed(form[k]) === defaults[k] ? null : trimmed(form[k])])), ...reset }),
    clear: () => setQuery({ ...Object.fromEntries(keys.map((k) => [k, null])), ...reset }),
  };
}

/** A list's filter form: its fields, then the button that applies them and Clear while any is. */
export function FilterForm<F extends Record<string, string>>({ label, submit = 'Filter', filters, children }: { label: string; submit?: string; filters: UrlFilters<F>; children: ComponentChildren }) {
  return (
    <form
      class="filters card"
      role="search"
      aria-label={label}
      onSubmit={(e) => {
        e.preventDefault();
        filters.apply();
      }}
    >
      {children}
      <div class="actions">
        <Button type="submit" variant="primary">
          {submit}
        </Button>
        {filters.filtered && (
          <Button variant="ghost" onClick={filters.clear}>
            Clear
          </Button>
        )}
      </div>
    </form>
  );
}

/** What a list's request says before its table: an error no field is to blame for, or that it loads. */
export function ListStatus({ list }: { list: Loaded<unknown> }) {
  return (
    <>
      {list.error && !Object.keys(list.error.fields).length && <ErrorNotice error={list.error} />}
      {!list.data && list.loading && <Loading />}
    </>
  );
}
