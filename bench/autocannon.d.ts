// autocannon ships no types; the part the benchmarks use.
declare module 'autocannon' {
  type Options = { url: string; method?: string; headers?: Record<string, string>; body?: string; duration?: number; connections?: number };
  type Result = { requests: { average: number; total: number }; non2xx: number; errors: number };
  export default function autocannon(options: Options): Promise<Result>;
}
