import { PageHeader } from './PageHeader.tsx';

/** The placeholder of a page still to come. */
export function NotBuiltYet({ title, what }: { title: string; what: string }) {
  return (
    <>
      <PageHeader title={title} description={what} />
      <div class="empty-state">
        <p class="empty-title">Not built yet</p>
        <p class="empty-text">This page is coming. Meanwhile the management API and the CLI do everything it will.</p>
      </div>
    </>
  );
}
