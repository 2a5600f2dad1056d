import type { ComponentChildren } from 'preact';
import { Link } from '../router.tsx';
import type { Loaded } from '../useApi.ts';
import { EmptyState } from './EmptyState.tsx';
import { ErrorNotice, Loading } from './Notice.tsx';
import { PageHeader } from './PageHeader.tsx';

/**
 * A record's page till its record is there: the title and the way back to its `list`, then on a
 * 404 that the organization has no such `what` (`children` say why), another error, or that it loads.
 */
export function RecordPending({ loaded, title, what, list: [href, label], children }: { loaded: Loaded<unknown>; title: string; what: string; list: [href: string, label: string]; children?: ComponentChildren }) {
  return (
    <>
      <PageHeader title={title} back={<Link href={href}>{`← ${label}`}</Link>} />
      {!loaded.error ? (
        <Loading />
      ) : loaded.error.status === 404 ? (
        <EmptyState title={`No such ${what} in this organization`} action={<Link href={href}>{`Back to ${label}`}</Link>}>
          {children}
        </EmptyState>
      ) : (
        <ErrorNotice error={loaded.error} />
      )}
    </>
  );
}
