import type { ComponentChildren } from 'preact';

const TONES: Record<string, 'green' | 'blue' | 'grey' | 'red' | 'amber'> = {
  completed: 'green',
  paid: 'green',
  published: 'green',
  active: 'green',
  trialing: 'blue',
  past_due: 'amber',
  incomplete: 'amber',
  unpaid: 'red',
  uncollectible: 'red',
  canceled: 'grey',
  incomplete_expired: 'grey',
  enabled: 'green',
  open: 'blue',
  running: 'blue',
  draft: 'grey',
  expired: 'grey',
  archived: 'grey',
  void: 'grey',
  paused: 'amber',
  disabled: 'amber',
  failed: 'red',
  revoked: 'red',
};

/** A status as a coloured pill (the word is the information; colour only repeats it). */
export function Badge({ status, children }: { status: string; children?: ComponentChildren }) {
  return <span class={`badge badge-${TONES[status] ?? 'grey'}`}>{children ?? status}</span>;
}
