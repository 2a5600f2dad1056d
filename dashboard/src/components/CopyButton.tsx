import { useState } from 'preact/hooks';

/** Copies a value; says so (to screen readers too) for two seconds. */
export function CopyButton({ text, label = 'Copy', class: cls }: { text: string; label?: string; class?: string }) {
  const [state, setState] = useState<'idle' | 'copied' | 'failed'>('idle');
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(text);
      setState('copied');
    } catch {
      setState('failed');
    }
    setTimeout(() => setState('idle'), 2000);
  };
  return (
    <button type="button" class={`btn btn-secondary btn-sm copy${cls ? ` ${cls}` : ''}`} onClick={copy}>
      <span aria-live="polite">{state === 'copied' ? 'Copied' : state === 'failed' ? 'Press Ctrl+C' : label}</span>
    </button>
  );
}

/** A value to copy shown in full (a link, a token), with its button. */
export function CopyField({ text, label }: { text: string; label: string }) {
  return (
    <div class="copy-field">
      <code class="copy-value" aria-label={label}>
        {text}
      </code>
      <CopyButton text={text} label={`Copy`} />
    </div>
  );
}
