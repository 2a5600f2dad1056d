import type { ButtonHTMLAttributes, ComponentChildren } from 'preact';
import type { ApiError } from '../api.ts';
import { Notice } from './Notice.tsx';

type Props = Omit<ButtonHTMLAttributes<HTMLButtonElement>, 'size'> & {
  variant?: 'primary' | 'secondary' | 'danger' | 'ghost';
  size?: 'sm' | 'md';
  /** Shows the work under way and keeps it from being sent twice. */
  busy?: boolean;
  /** This button's action failed: its message shows beside the button, where the person looks. */
  error?: ApiError | Error | null;
  children?: ComponentChildren;
};

export function Button({ variant = 'secondary', size = 'md', busy = false, disabled, type = 'button', class: cls, error, children, ...rest }: Props) {
  const button = (
    <button type={type} class={`btn btn-${variant}${size === 'sm' ? ' btn-sm' : ''}${cls ? ` ${String(cls)}` : ''}`} disabled={disabled || busy} aria-busy={busy || undefined} {...rest}>
      {busy && <span class="spinner" aria-hidden="true" />}
      {children}
    </button>
  );
  if (!error) return button;
  return (
    <span class="btn-with-error">
      {button}
      <span class="btn-error" role="alert">
        {error.message}
      </span>
    </span>
  );
}

/** A settings form's end: "Saved." after a save, then its Save button, or for a non-owner who may change it. */
export function OwnerSave({ owner, saved, busy, label = 'Save', refusal = 'Only owners change these.' }: { owner: boolean; saved: boolean; busy: boolean; label?: string; refusal?: string }) {
  return (
    <>
      {saved && <Notice tone="success">Saved.</Notice>}
      {owner ? (
        <Button type="submit" variant="primary" busy={busy}>
          {label}
        </Button>
      ) : (
        <p class="muted">{refusal}</p>
      )}
    </>
  );
}
