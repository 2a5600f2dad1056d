import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'size'> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  size?: 'sm' | 'md';
  /** Shows the work under way and keeps it from being sent twice. */
  busy?: boolean;
  children?: ComponentChildren;
};

export function Button({ variant = 'secondary', size = 'md', busy = false, disabled, type = 'button', class: cls, children, ...rest }: Props) {
  return (
    <button type={type} class={`btn btn-${variant}${size === 'sm' ? ' btn-sm' : ''}${cls ? ` ${String(cls)}` : ''}`} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
}
