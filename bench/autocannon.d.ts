// The part of autocannon's API the benchmark uses (the package ships no types).
declare module 'autocannon' {
  interface Histogram {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    max: number;
    total: number;
  }
  interface Result {
    requests: Histogram;
    latency: Histogram;
    errors: number;
    timeouts: number;
    non2xx: number;
    duration: number;
  }
  interface Options {
    url: string;
    connections?: number;
    pipelining?: number;
    duration?: number;
    /** Requests to send before ending (overrides `duration`). */
    amount?: number;
    headers?: Record<string, string>;
    /** Requests in sequence; `setupRequest` rewrites each one before it is sent. */
    requests?: Array<{
      method?: string;
      path?: string;
      headers?: Record<string, string>;
      setupRequest?: (request: { headers: Record<string, string> }) => { headers: Record<string, string> };
    }>;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
