import type { Loaded } from '../useApi.ts';
import { Button } from './Button.tsx';
import { ErrorNotice, Loading } from './Notice.tsx';

/** A list filter's buttons: apply, and Clear while anything is filtered. */
export function FilterActions({ label, filtered, onClear }: { label: string; filtered: boolean; onClear: () => void }) {
  return (
    <div class="actions">
      <Button type="submit" variant="primary">
        {label}
      </Button>
      {filtered && (
        <Button variant="ghost" onClick={onClear}>
          Clear
        </Button>
      )}
    </div>
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
