import { Registry } from 'prom-client';
import type { Metrics } from '../../platform/runtime/metrics.ts';
import type { FromSubscribers } from './threadMessages.ts';

type Counts = Extract<FromSubscribers, { type: 'metrics' }>;

export type ForwardedMetrics = Metrics & {
  /** What was counted since the last call, or null when nothing was. */
  take(): Counts | null;
};

/**
 * The subscriber thread's metrics: it serves no /metrics, so it only counts what the server's
 * figures must include (the events its jobs append, their outbound webhook calls) for the server
 * thread to add to its own registry.
 */
export function forwardedMetrics(): ForwardedMetrics {
  let appended = new Map<string, number>();
  let webhooks = { success: 0, failure: 0 };
  return {
    registry: new Registry(),
    httpRequest: () => undefined,
    eventsAppended(types) {
      for (const type of types) appended.set(type, (appended.get(type) ?? 0) + 1);
    },
    webhookResult(success) {
      webhooks[success ? 'success' : 'failure'] += 1;
    },
    addCounts: () => undefined,
    setProjectionLagSource: () => undefined,
    async scrape() {
      return { contentType: 'text/plain', body: '' };
    },
    take() {
      if (appended.size === 0 && webhooks.success === 0 && webhooks.failure === 0) return null;
      const counts: Counts = { type: 'metrics', appended: [...appended], webhooks };
      appended = new Map();
      webhooks = { success: 0, failure: 0 };
      return counts;
    },
  };
}
