import type { ComponentChildren } from 'preact';
import { useEffect } from 'preact/hooks';

/** The page's title (also the document's, for tabs and screen readers), what it is for, its actions. */
export function PageHeader({ title, description, actions, back }: { title: string; description?: ComponentChildren; actions?: ComponentChildren; back?: ComponentChildren }) {
  useEffect(() => {
    document.title = `${title} · Dashboard`;
  }, [title]);
  return (
    <header class="page-header">
      {back && <div class="page-back">{back}</div>}
      <div class="page-header-row">
        <div>
          <h1 id="page-title" tabIndex={-1}>
            {title}
          </h1>
          {description && <p class="page-description">{description}</p>}
        </div>
        {actions && <div class="page-actions">{actions}</div>}
      </div>
    </header>
  );
}
