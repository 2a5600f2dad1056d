import type { ComponentChildren } from 'preact';
import { formatDateTimeSeconds } from '../format.ts';

type Props = { event: string; at: number; meta: ComponentChildren; badges?: ComponentChildren; changes?: string[]; current?: boolean; future?: string | false };

/**
 * One event of a record's history, at `at` (Unix seconds). With `onSelect` its name is a button
 * showing the record as of then; `future` (for screen readers) marks it as after the moment shown.
 */
export function TimelineItem({ event, at, meta, badges, changes = [], current = false, future, onSelect, selectLabel }: Props & { onSelect?: () => void; selectLabel?: string }) {
  return (
    <li class={`timeline-item${current ? ' current' : ''}${future ? ' future' : ''}`} aria-current={current ? 'step' : undefined}>
      <span class="timeline-dot" aria-hidden="true" />
      <div class="timeline-body">
        <div class="timeline-head">
          {onSelect ? (
            <button type="button" class="timeline-event" onClick={onSelect} aria-label={selectLabel}>
              {event}
            </button>
          ) : (
            <span class="timeline-event">{event}</span>
          )}
          {badges}
        </div>
        <p class="timeline-meta">
          <time>{formatDateTimeSeconds(at)}</time>
          {meta}
        </p>
        {changes.length > 0 && (
          <ul class="timeline-changes">
            {changes.map((d) => (
              <li key={d}>{d}</li>
            ))}
          </ul>
        )}
        {future && <span class="sr-only">{future}</span>}
      </div>
    </li>
  );
}
