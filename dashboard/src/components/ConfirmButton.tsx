import { useState } from 'preact/hooks';
import { Button } from './Button.tsx';

/** A destructive action in two presses, no modal; `what` names its object for screen readers ("Revoke Laptop"). */
export function ConfirmButton({ label, what, confirm = `Yes, ${label.toLowerCase()}`, onConfirm }: { label: string; what: string; confirm?: string; onConfirm: () => Promise<void> | void }) {
  const [asking, setAsking] = useState(false);
  const [busy, setBusy] = useState(false);
  if (!asking) {
    return (
      <Button size="sm" variant="danger" onClick={() => setAsking(true)} aria-label={`${label} ${what}`}>
        {label}
      </Button>
    );
  }
  return (
    <span class="confirm">
      <Button
        size="sm"
        variant="danger"
        busy={busy}
        aria-label={`${confirm}: ${what}`}
        onClick={async () => {
          setBusy(true);
          try {
            await onConfirm();
          } finally {
            setBusy(false);
            setAsking(false);
          }
        }}
      >
        {confirm}
      </Button>
      <Button size="sm" variant="ghost" onClick={() => setAsking(false)}>
        Cancel
      </Button>
    </span>
  );
}
