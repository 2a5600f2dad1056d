// The few autocannon types the benchmarks use (the package ships none; @types/autocannon is not installed).
declare module 'autocannon' {
  type Options = {
    url: string;
    method?: string;
    body?: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
  };
  type Result = {
    requests: { average: number; mean: number; total: number };
    non2xx: number;
    errors: number;
    timeouts: number;
    '2xx': number;
    duration: number;
    latency: { p50: number; p99: number };
  };
  export default function autocannon(options: Options): Promise<Result>;
}
