import { collectDefaultMetrics, Counter, Gauge, Registry } from 'prom-client';
import { registerHttpRequestMetrics } from './httpRequestMetrics.ts';

export type ProjectionLag = { projection: string; events: number };

/**
 * Prometheus metrics of one service instance. Each instance owns its registry (no prom-client
 * globals), so several servers in one test process do not mix their figures. Other code records
 * through the small methods here and never touches prom-client itself.
 */
export type Metrics = {
  readonly registry: Registry;
  /** One HTTP request answered: route is the pattern (`/api/catalog/products/:product`), never the raw URL. */
  httpRequest(method: string, route: string, statusCode: number, seconds: number): void;
  eventsAppended(types: readonly string[]): void;
  /** One outbound webhook call finished (a 2xx within the time-out counts as success). */
  webhookResult(success: boolean): void;
  /** What the server's subscriber thread counted (events its jobs appended, their webhook calls). */
  addCounts(counts: { appended: ReadonlyArray<readonly [string, number]>; webhooks: { success: number; failure: number } }): void;
  /** Called at each scrape to report how far each projection is behind the head of the log. */
  setProjectionLagSource(source: () => Promise<ProjectionLag[]>): void;
  /** The exposition text and its content type. */
  scrape(): Promise<{ contentType: string; body: string }>;
};

export function createMetrics(): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });

  const httpRequest = registerHttpRequestMetrics(registry);
  // Counted in a plain map per append and added to the counter at scrape (as for the HTTP series).
  const appendedSinceScrape = new Map<string, number>();
  const countAppended = (type: string, n: number) => appendedSinceScrape.set(type, (appendedSinceScrape.get(type) ?? 0) + n);
  new Counter({
    name: 'events_appended_total',
    help: 'Events appended to the event store by this process, by event type.',
    labelNames: ['type'] as const,
    registers: [registry],
    collect() {
      for (const [type, count] of appendedSinceScrape) this.inc({ type }, count);
      appendedSinceScrape.clear();
    },
  });
  const webhooks = new Counter({
    name: 'outbound_webhooks_total',
    help: 'Outbound webhook calls, by result (success: a 2xx within the time-out).',
    labelNames: ['result'] as const,
    registers: [registry],
  });
  // Both results exist from the start, so a rate() over them is defined before the first call.
  webhooks.inc({ result: 'success' }, 0);
  webhooks.inc({ result: 'failure' }, 0);

  let lagSource: (() => Promise<ProjectionLag[]>) | null = null;
  new Gauge({
    name: 'projection_lag_events',
    help: 'Global positions between the head of the event log and each projection checkpoint.',
    labelNames: ['projection'] as const,
    registers: [registry],
    async collect() {
      this.reset();
      if (!lagSource) return;
      for (const { projection, events } of await lagSource()) this.set({ projection }, events);
    },
  });

  return {
    registry,
    httpRequest,
    eventsAppended(types) {
      for (const type of types) countAppended(type, 1);
    },
    webhookResult(success) {
      webhooks.inc({ result: success ? 'success' : 'failure' });
    },
    addCounts(counts) {
      for (const [type, n] of counts.appended) countAppended(type, n);
      if (counts.webhooks.success > 0) webhooks.inc({ result: 'success' }, counts.webhooks.success);
      if (counts.webhooks.failure > 0) webhooks.inc({ result: 'failure' }, counts.webhooks.failure);
    },
    setProjectionLagSource(source) {
      lagSource = source;
    },
    async scrape() {
      return { contentType: registry.contentType, body: await registry.metrics() };
    },
  };
}
