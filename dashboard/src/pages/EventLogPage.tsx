import { useState } from 'preact/hooks';
import { actorLabel, useMembers } from '../actors.ts';
import type { Actor } from '../types.ts';
import type { z } from 'zod';
import type { LoggedEventSchema } from '../../../modules/reporting/index.ts';
import { Button } from '../components/Button.tsx';
import { Card } from '../components/Card.tsx';
import { DevelopersSection } from '../components/Tabs.tsx';
import { EmptyState } from '../components/EmptyState.tsx';
import { Field, Input } from '../components/Field.tsx';
import { FilterForm, useUrlFilters } from '../components/ListFilter.tsx';
import { ErrorNotice, Loading } from '../components/Notice.tsx';
import { formatDateTimeSeconds } from '../format.ts';
import { Link, setQuery, useLocation } from '../router.tsx';
import { useApi } from '../useApi.ts';

/** The route's schema leaves the actor open; it is the actor the event was recorded with. */
type LoggedEvent = Omit<z.infer<typeof LoggedEventSchema>, 'actor'> & { actor: Actor };

const TYPES = [
  'CheckoutSessionCreated',
  'CheckoutSessionCompleted',
  'CheckoutSessionExpired',
  'InvoicePaid',
  'ProductCreated',
  'ProductPublished',
  'OfferCreated',
  'OfferPublished',
  'WorkflowStarted',
  'WorkflowFailed',
  'OrganizationUpdated',
];

/** Where an event's stream has a page of its own. */
function streamLink(stream: string): string | null {
  const m = /^checkout_session-(.+)$/.exec(stream);
  return m ? `/dashboard/sales/${encodeURIComponent(m[1]!)}` : null;
}

/** The organization's events in log order, 50 at a time; the `?after=` cursors passed are kept for Previous. */
export function EventLogPage() {
  const { query } = useLocation();
  const filters = useUrlFilters({ type: '' }, { after: null });
  const { type } = filters.applied;
  const after = query.get('after') ?? '';
  const [trail, setTrail] = useState<string[]>([]);
  // A new filter reads the log from its start: the cursors passed are dropped.
  const fromStart = (go: () => void) => () => {
    setTrail([]);
    go();
  };
  const log = useApi<{ data: LoggedEvent[]; next_after: string | null }>('/events', { type, after, limit: 25 });
  const members = useMembers();

  return (
    <DevelopersSection current="/dashboard/developers/events" description="Every change in your organization is an event: here they all are, oldest first, with who made them.">
      <FilterForm label="Filter events" filters={{ ...filters, apply: fromStart(filters.apply), clear: fromStart(filters.clear) }}>
        <Field label="Event type" name="type" error={log.error} hint="Exact type, such as CheckoutSessionCompleted.">
          {(c) => <Input {...c} list="event-types" value={filters.form.type} onValue={filters.set('type')} autoComplete="off" />}
        </Field>
        <datalist id="event-types">
          {TYPES.map((t) => (
            <option key={t} value={t} />
          ))}
        </datalist>
      </FilterForm>
      {log.error && !log.error.field('type') && <ErrorNotice error={log.error} />}
      {!log.data && log.loading && <Loading />}
      {log.data && (
        <Card>
          {log.data.data.length === 0 ? (
            <EmptyState title={type ? `No ${type} events here` : 'No events here'}>
              {type ? 'Check the spelling of the type (it is case-sensitive), or clear the filter.' : 'Create a product or an offer and its events appear here.'}
            </EmptyState>
          ) : (
            <ol class="event-list">
              {log.data.data.map((e) => {
                const href = streamLink(e.stream);
                return (
                  <li key={e.id} class="event-item">
                    <div class="event-head">
                      <code class="event-type">{e.type}</code>
                      <time class="muted">{formatDateTimeSeconds(e.occurred_at)}</time>
                    </div>
                    <p class="event-meta">
                      {href ? <Link href={href}>{e.stream}</Link> : <span class="mono">{e.stream}</span>} · revision {e.revision} · {actorLabel(e.actor, members)}
                    </p>
                    <details>
                      <summary>Data</summary>
                      <pre class="json">{JSON.stringify(e.data, null, 2)}</pre>
                    </details>
                  </li>
                );
              })}
            </ol>
          )}
          <nav class="pagination" aria-label="Event pages">
            <span class="pagination-info">{log.data.data.length} events on this page</span>
            <span class="pagination-buttons">
              <Button
                size="sm"
                disabled={!after}
                onClick={() => {
                  const previous = trail.at(-1) ?? '';
                  setTrail(trail.slice(0, -1));
                  setQuery({ after: previous || null });
                }}
              >
                Previous
              </Button>
              <Button
                size="sm"
                disabled={!log.data.next_after}
                onClick={() => {
                  setTrail([...trail, after]);
                  setQuery({ after: log.data!.next_after });
                }}
              >
                Next
              </Button>
            </span>
          </nav>
        </Card>
      )}
    </DevelopersSection>
  );
}
