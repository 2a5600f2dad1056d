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
