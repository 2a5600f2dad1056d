import type { ComponentChildren, InputHTMLAttributes, SelectHTMLAttributes } from 'preact';
import { useId, useState } from 'preact/hooks';
import type { ApiError } from '../api.ts';

/** A labelled form field showing the last submit's `errors[name]` beside it, marked invalid. */
export function Field({
  label,
  name,
  error,
  hint,
  children,
}: {
  label: ComponentChildren;
  /** The body field, as the route's `errors` names it. */
  name: string;
  error?: ApiError | null | undefined;
  hint?: ComponentChildren;
  /** A render function gets the ids to wire the control with; else pass `input` props to <Input>. */
  children: (control: { id: string; name: string; 'aria-invalid'?: true; 'aria-describedby'?: string }) => ComponentChildren;
}) {
  const id = useId();
  const message = error?.field(name);
  const described = [hint ? `${id}-hint` : '', message ? `${id}-error` : ''].filter(Boolean).join(' ');
  return (
    <div class={`field${message ? ' field-invalid' : ''}`}>
      <label for={id}>{label}</label>
      {children({ id, name, ...(message ? { 'aria-invalid': true as const } : {}), ...(described ? { 'aria-describedby': described } : {}) })}
      {hint && (
        <p class="field-hint" id={`${id}-hint`}>
          {hint}
        </p>
      )}
      {message && (
        <p class="field-error" id={`${id}-error`}>
          {message}
        </p>
      )}
    </div>
  );
}

/** A form's fields as one state; `set(name)` is one field's setter, for an <Input onValue>. */
export function useFields<F extends object>(initial: F) {
  const [fields, setFields] = useState(initial);
  const set = <K extends keyof F>(name: K) => (value: F[K]) => setFields((f) => ({ ...f, [name]: value }));
  return { fields, set, setFields };
}

/** A text input bound to a string state. */
export function Input({ value, onValue, ...rest }: InputHTMLAttributes<HTMLInputElement> & { value: string; onValue: (v: string) => void }) {
  return <input class="input" value={value} onInput={(e) => onValue((e.target as HTMLInputElement).value)} {...(rest as InputHTMLAttributes<HTMLInputElement>)} />;
}

export function Select({ value, onValue, children, ...rest }: SelectHTMLAttributes<HTMLSelectElement> & { value: string; onValue: (v: string) => void }) {
  return (
    <select class="input" value={value} onChange={(e) => onValue((e.target as HTMLSelectElement).value)} {...(rest as SelectHTMLAttributes<HTMLSelectElement>)}>
      {children}
    </select>
  );
}

/** Field errors the form shows nowhere else (a name no field carries): listed under the form. */
export function OtherErrors({ error, shown }: { error: ApiError | null | undefined; shown: string[] }) {
  if (!error) return null;
  const rest = Object.entries(error.fields).filter(([name]) => !shown.includes(name));
  if (!rest.length && Object.keys(error.fields).length) return null;
  return (
    <div class="notice notice-error" role="alert">
      <p>{error.message}</p>
      {rest.length > 0 && (
        <ul>
          {rest.map(([name, messages]) => (
            <li key={name}>
              <code>{name}</code>: {messages.join(' ')}
            </li>
          ))}
        </ul>
      )}
    </div>
  );
}
