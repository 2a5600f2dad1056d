import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerHttpRequestMetrics } from '../../platform/runtime/httpRequestMetrics.ts';

describe('HTTP request metrics', () => {
  it('exposes one counter and one cumulative histogram per method, route and status', async () => {
    const registry = new Registry();
    const record = registerHttpRequestMetrics(registry);
    record('GET', '/api/catalog/products', 200, 0.0004);
    record('GET', '/api/catalog/products', 200, 0.003);
    record('GET', '/api/catalog/products', 200, 30);
    record('POST', '/hooks/catch/:sequence/:trigger', 404, 0.002);

    const lines = (await registry.metrics()).split('\n');
    const route = 'method="GET",route="/api/catalog/products",status_code="200"';
    expect(lines).toContain(`http_requests_total{${route}} 3`);
    expect(lines).toContain(`http_request_duration_seconds_bucket{${route},le="0.001"} 1`);
    expect(lines).toContain(`http_request_duration_seconds_bucket{${route},le="0.0025"} 1`);
    expect(lines).toContain(`http_request_duration_seconds_bucket{${route},le="0.005"} 2`);
    expect(lines).toContain(`http_request_duration_seconds_bucket{${route},le="10"} 2`);
    expect(lines).toContain(`http_request_duration_seconds_bucket{${route},le="+Inf"} 3`);
    expect(lines).toContain(`http_request_duration_seconds_count{${route}} 3`);
    expect(lines).toContain(`http_request_duration_seconds_sum{${route}} 30.0034`);
    expect(lines).toContain('http_requests_total{method="POST",route="/hooks/catch/:sequence/:trigger",status_code="404"} 1');
    expect(lines).toContain('# TYPE http_request_duration_seconds histogram');
    expect(lines).toContain('# TYPE http_requests_total counter');
  });
});
