import type { ComponentChildren } from 'preact';

const TONES: Record<string, 'green' | 'blue' | 'grey' | 'red' | 'amber'> = {
  completed: 'green',
  paid: 'green',
  published: 'green',
  active: 'green',
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
  trialing: 'blue',
  past_due: 'amber',
  unpaid: 'red',
  uncollectible: 'red',
  canceled: 'grey',
  incomplete: 'grey',
  incomplete_expired: 'grey',
  test: 'amber',
  refunded: 'grey',
  partially_refunded: 'amber',
};

/** A status as a coloured pill (the word is the information; colour only repeats it). */
export function Badge({ status, children }: { status: string; children?: ComponentChildren }) {
  return <span class={`badge badge-${TONES[status] ?? 'grey'}`}>{children ?? status}</span>;
}
