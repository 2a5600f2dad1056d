import type { ComponentChildren } from 'preact';
import type { Loaded } from '../useApi.ts';
import { ErrorNotice, Loading } from './Notice.tsx';
import { PageHeader } from './PageHeader.tsx';

/** A record's page till its record is there: the title and the way back, then `missing` on a 404, another error, or that it loads. */
export function RecordPending({ loaded, title, back, missing }: { loaded: Loaded<unknown>; title: string; back: ComponentChildren; missing: ComponentChildren }) {
  return (
    <>
      <PageHeader title={title} back={back} />
      {!loaded.error ? <Loading /> : loaded.error.status === 404 ? missing : <ErrorNotice error={loaded.error} />}
    </>
  );
}
