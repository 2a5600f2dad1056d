import { useId } from 'preact/hooks';
import type { ApiError } from '../api.ts';

const FIELD = 'allowed_redirect_origins';

/** The names of the origin list's errors ("allowed_redirect_origins.1"), which this field shows. */
export const originErrorNames = (error: ApiError | null | undefined): string[] => Object.keys(error?.fields ?? {}).filter((k) => k === FIELD || k.startsWith(`${FIELD}.`));

/** The textarea's lines as the route takes them: trimmed, blank lines left out. */
export const originLines = (text: string): string[] =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);

/**
 * The origins a caller without an API key (a shop's page, say) may send a session's success_url
 * and cancel_url on, one per line; "allowed_redirect_origins.1" errors show as "Line 2: …".
 */
export function OriginsField({ value, onValue, error, disabled, hint }: { value: string; onValue: (v: string) => void; error: ApiError | null | undefined; disabled?: boolean; hint: string }) {
  const id = useId();
  const messages = originErrorNames(error).map((k) => (k === FIELD ? error!.fields[k]![0]! : `Line ${Number(k.split('.')[1]) + 1}: ${error!.fields[k]![0]!}`));
  return (
    <div class={`field${messages.length ? ' field-invalid' : ''}`}>
      <label for={id}>Allowed redirect origins</label>
      <textarea
        id={id}
        name={FIELD}
        class="input"
        rows={3}
        spellcheck={false}
        autoComplete="off"
        placeholder="https://shop.example"
        disabled={disabled}
        aria-describedby={`${id}-hint${messages.length ? ` ${id}-error` : ''}`}
        aria-invalid={messages.length ? true : undefined}
        value={value}
        onInput={(e) => onValue((e.target as HTMLTextAreaElement).value)}
      />
      <p class="field-hint" id={`${id}-hint`}>
        {hint}
      </p>
      {messages.length > 0 && (
        <div class="field-error" id={`${id}-error`}>
          {messages.map((m) => (
            <p key={m}>{m}</p>
          ))}
        </div>
      )}
    </div>
  );
}
