import type { ComponentChildren } from 'preact';

/** What an empty list means and what to do next. */
export function EmptyState({ title, children, action }: { title: string; children?: ComponentChildren; action?: ComponentChildren }) {
  return (
    <div class="empty-state">
      <p class="empty-title">{title}</p>
      {children && <div class="empty-text">{children}</div>}
      {action && <div class="empty-action">{action}</div>}
    </div>
  );
}
