import { element as create, installStyles } from './frames.ts';

export type PromoTier = Record<string, unknown> & { name?: string };

export type PromoState = {
  slug: string;
  name: string;
  state: string;
  starts_at: number | null;
  ends_at: number | null;
  current_tier: PromoTier | null;
  tiers: PromoTier[];
  participants_count: number;
  countdown: { ends_at: number | null; seconds_remaining: number | null } | null;
  server_time: number;
};

export type PromoChange = { type: 'tier'; from: PromoTier | null; to: PromoTier | null; state: PromoState } | { type: 'state'; from: string; to: string; state: PromoState };

export type PromoHandle = PromiseLike<PromoState> & {
  readonly slug: string;
  /** The latest state fetched, or null before the first answer. */
  readonly state: PromoState | null;
  /** Seconds until the countdown ends, corrected for the skew between this clock and the server's. */
  secondsRemaining(): number | null;
  /** Calls back on every tier or state change; returns the unsubscribe function. */
  onChange(callback: (change: PromoChange) => void): () => void;
  /** Tier and state changes as they happen, as an async iterable (ends on stop()). */
  readonly changes: AsyncIterable<PromoChange>;
  /** Renders a live promo/countdown widget into the element; returns its remover. */
  render(element: Element): () => void;
  stop(): void;
};

/** How often a promo handle asks the server again; tier changes show up within this interval. */
export const PROMO_POLL_MS = 15_000;

const tierKey = (t: PromoTier | null) => (t ? JSON.stringify(t) : 'null');

export function formatCountdown(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hms = [Math.floor((s % 86400) / 3600), Math.floor((s % 3600) / 60), s % 60].map((n) => String(n).padStart(2, '0')).join(':');
  return d > 0 ? `${d}d ${hms}` : hms;
}

export function createPromoHandle(baseUrl: string, slug: string, pollMs = PROMO_POLL_MS): PromoHandle {
  let state: PromoState | null = null;
  let skewMs = 0;
  let stopped = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const listeners = new Set<(c: PromoChange) => void>();
  let resolveFirst!: (s: PromoState) => void;
  let rejectFirst!: (e: unknown) => void;
  const first = new Promise<PromoState>((res, rej) => {
    resolveFirst = res;
    rejectFirst = rej;
  });
  // Unobserved when nobody awaits the handle: keep the rejection from surfacing as unhandled.
  first.catch(() => undefined);

  async function poll(): Promise<void> {
    try {
      const res = await fetch(`${baseUrl}/api/promos/${encodeURIComponent(slug)}`, { headers: { accept: 'application/json' } });
      if (!res.ok) {
        // No such promo: asking again will not make one. Other failures (network, 429, 5xx) may pass.
        if (res.status === 404) handle.stop();
        const body = (await res.json().catch(() => ({}))) as { message?: string };
        throw new Error(body.message ?? `promo ${slug}: HTTP ${res.status}`);
      }
      const next = (await res.json()) as PromoState;
      skewMs = next.server_time * 1000 - Date.now();
      const prev = state;
      state = next;
      if (prev && tierKey(prev.current_tier) !== tierKey(next.current_tier)) emit({ type: 'tier', from: prev.current_tier, to: next.current_tier, state: next });
      if (prev && prev.state !== next.state) emit({ type: 'state', from: prev.state, to: next.state, state: next });
      resolveFirst(next);
    } catch (error) {
      rejectFirst(error);
    }
    if (!stopped) timer = setTimeout(poll, pollMs);
  }

  function emit(change: PromoChange): void {
    for (const l of [...listeners]) l(change);
  }

  const handle: PromoHandle = {
    slug,
    get state() {
      return state;
    },
    then: (f, r) => first.then(f, r),
    secondsRemaining() {
      const endsAt = state?.countdown?.ends_at ?? state?.ends_at ?? null;
      if (endsAt === null || endsAt === undefined) return null;
      return Math.max(0, Math.floor(endsAt - (Date.now() + skewMs) / 1000));
    },
    onChange(callback) {
      listeners.add(callback);
      return () => listeners.delete(callback);
    },
    changes: {
      [Symbol.asyncIterator]() {
        const queue: PromoChange[] = [];
        let wake: (() => void) | null = null;
        let done = false;
        const off = handle.onChange((c) => {
          queue.push(c);
          wake?.();
        });
        const stopWatch = () => {
          done = true;
          off();
          wake?.();
        };
        stopHooks.add(stopWatch);
        return {
          async next(): Promise<IteratorResult<PromoChange>> {
            for (;;) {
              if (queue.length) return { value: queue.shift()!, done: false };
              if (done || stopped) return { value: undefined, done: true };
              await new Promise<void>((r) => (wake = r));
              wake = null;
            }
          },
          async return(): Promise<IteratorResult<PromoChange>> {
            stopWatch();
            return { value: undefined, done: true };
          },
        };
      },
    },
    render(element) {
      return renderPromoWidget(handle, element);
    },
    stop() {
      stopped = true;
      clearTimeout(timer);
      for (const h of [...stopHooks]) h();
    },
  };
  const stopHooks = new Set<() => void>();
  void poll();
  return handle;
}

/** A small accessible widget: promo name, current tier and a ticking countdown; updates on changes. */
function renderPromoWidget(handle: PromoHandle, element: Element): () => void {
  const doc = element.ownerDocument;
  installStyles(doc);
  const box = create(doc, 'div', 'csdk-promo');
  const name = create(doc, 'strong', 'csdk-promo-name');
  const tier = create(doc, 'span', 'csdk-promo-tier');
  const clock = create(doc, 'span', 'csdk-promo-countdown', { role: 'timer' });
  // The box is not live: its countdown changes every second. Only tier and state changes are announced.
  const news = create(doc, 'span', 'csdk-sr', { role: 'status' });
  box.append(name, ' ', tier, ' ', clock, news);
  let told = '';
  const draw = () => {
    const s = handle.state;
    if (!s) return;
    if (box.parentNode !== element) element.replaceChildren(box);
    element.setAttribute('data-promo-state', s.state);
    name.textContent = s.name;
    tier.textContent = s.current_tier ? String(s.current_tier.name ?? s.current_tier.label ?? '') : '';
    const left = handle.secondsRemaining();
    const phase = s.state === 'scheduled' ? 'Starting soon' : s.state === 'ended' ? 'Ended' : '';
    clock.textContent = s.state === 'active' && left !== null ? `Ends in ${formatCountdown(left)}` : phase;
    const now = [s.name, tier.textContent, phase].filter(Boolean).join(', ');
    // The first drawing is read with the page; later ones are news.
    if (told && now !== told) news.textContent = now;
    told = now;
  };
  handle.then(draw, () => {
    element.setAttribute('data-promo-state', 'unavailable');
    if (!handle.state) clearInterval(tick);
  });
  const off = handle.onChange(draw);
  const tick = setInterval(draw, 1000);
  return () => {
    off();
    clearInterval(tick);
  };
}
