import { createRequire } from 'node:module';

/** The part of autocannon's options and result the benchmarks use (it ships no types). */
export type LoadRequest = { method?: string; path: string; headers?: Record<string, string>; body?: string };
export type LoadOptions = {
  url: string;
  connections: number;
  duration: number;
  /** Requests per second across all connections; omitted: as fast as possible. */
  overallRate?: number;
  requests: LoadRequest[];
  headers?: Record<string, string>;
};
export type LoadResult = {
  requests: { average: number; total: number };
  latency: { p50: number; p99: number; average: number; max: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  '2xx': number;
};

const autocannon = createRequire(import.meta.url)('autocannon') as (options: LoadOptions) => Promise<LoadResult>;

/** Runs one load on loopback and resolves with autocannon's figures. */
export function load(options: LoadOptions): Promise<LoadResult> {
  return autocannon({ ...options });
}
