import type { Registry } from 'prom-client';

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const;

type Labels = { method: string; route: string; status_code: string };
type Series = { labels: Labels; count: number; sum: number; buckets: Float64Array };
type MetricValue = { labels: Record<string, string | number>; value: number; metricName?: string };

/**
 * The request counter and latency histogram as plain numbers per series, handed to prom-client
 * only when scraped. prom-client's own Counter and Histogram hash and validate a label object on
 * every observation: a measurable share of a cached request's time. Each series is kept per
 * (method, route pattern, status), so their number stays bounded whatever URLs clients send.
 */
export function registerHttpRequestMetrics(registry: Registry): (method: string, route: string, statusCode: number, seconds: number) => void {
  const series = new Map<string, Series>();

  const metric = (name: string, help: string, type: 'counter' | 'histogram', values: () => MetricValue[]) => ({
    name,
    help,
    type,
    aggregator: 'sum' as const,
    get: async () => ({ name, help, type, aggregator: 'sum' as const, values: values() }),
    reset: () => series.clear(),
  });

  const counter = metric('http_requests_total', 'HTTP requests answered, by method, route pattern and status code.', 'counter', () =>
    [...series.values()].map((s) => ({ labels: s.labels, value: s.count })),
  );
  const histogram = metric(
    'http_request_duration_seconds',
    'Time from request received to response sent, by method, route pattern and status code.',
    'histogram',
    () =>
      [...series.values()].flatMap((s) => {
        const lines: MetricValue[] = [];
        let cumulative = 0;
        BUCKETS.forEach((le, i) => {
          cumulative += s.buckets[i]!;
          lines.push({ labels: { ...s.labels, le }, value: cumulative, metricName: 'http_request_duration_seconds_bucket' });
        });
        lines.push({ labels: { ...s.labels, le: '+Inf' }, value: s.count, metricName: 'http_request_duration_seconds_bucket' });
        lines.push({ labels: s.labels, value: s.sum, metricName: 'http_request_duration_seconds_sum' });
        lines.push({ labels: s.labels, value: s.count, metricName: 'http_request_duration_seconds_count' });
        return lines;
      }),
  );
  // prom-client's registry takes any object of this shape (its Metric type is a class, hence the cast).
  registry.registerMetric(counter as unknown as Parameters<Registry['registerMetric']>[0]);
  registry.registerMetric(histogram as unknown as Parameters<Registry['registerMetric']>[0]);

  return (method, route, statusCode, seconds) => {
    const key = `${method} ${statusCode} ${route}`;
    let s = series.get(key);
    if (!s) {
      s = { labels: { method, route, status_code: String(statusCode) }, count: 0, sum: 0, buckets: new Float64Array(BUCKETS.length) };
      series.set(key, s);
    }
    s.count += 1;
    s.sum += seconds;
    const bucket = BUCKETS.findIndex((le) => seconds <= le);
    if (bucket >= 0) s.buckets[bucket]! += 1;
  };
}
