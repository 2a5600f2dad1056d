import type { ComponentChildren } from 'preact';

/** A titled panel of a page. */
export function Card({ title, actions, children, id }: { title?: ComponentChildren; actions?: ComponentChildren; children: ComponentChildren; id?: string }) {
  return (
    <section class="card" aria-labelledby={title && id ? `${id}-title` : undefined}>
      {(title || actions) && (
        <div class="card-header">
          {title && <h2 id={id ? `${id}-title` : undefined}>{title}</h2>}
          {actions && <div class="card-actions">{actions}</div>}
        </div>
      )}
      {children}
    </section>
  );
}

/** A card with one figure: its label, the value (`bad` marks it; `timer` for a countdown), and lines under it. */
export function StatCard({ label, value, bad, timer, testId, children }: { label: ComponentChildren; value: ComponentChildren; bad?: boolean; timer?: boolean; testId?: string; children?: ComponentChildren }) {
  return (
    <Card>
      <p class="stat-label">{label}</p>
      <p class={`stat-value${bad ? ' stat-bad' : ''}`} data-testid={testId} {...(timer ? { role: 'timer', 'aria-live': 'off' as const } : {})}>
        {value}
      </p>
      {children}
    </Card>
  );
}
