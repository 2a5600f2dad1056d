import type { ComponentChildren } from 'preact';
import type { ApiError } from '../api.ts';

/** A message about the whole page or form; errors are announced to screen readers. */
export function Notice({ tone = 'info', children }: { tone?: 'info' | 'error' | 'success' | 'warning'; children: ComponentChildren }) {
  return (
    <div class={`notice notice-${tone}`} role={tone === 'error' ? 'alert' : 'status'}>
      {children}
    </div>
  );
}

/** A failed request's message, when there is one. */
export function ErrorNotice({ error }: { error: ApiError | Error | null | undefined }) {
  if (!error) return null;
  return <Notice tone="error">{error.message}</Notice>;
}

export function Loading({ label = 'Loading…' }: { label?: string }) {
  return (
    <div class="loading" role="status">
      <span class="spinner" aria-hidden="true" />
      {label}
    </div>
  );
}
