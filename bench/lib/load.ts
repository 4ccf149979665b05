/**
 * One way to put load on a local server, shared by every benchmark so that each ratio compares
 * figures taken with the same generator. Traffic goes only to 127.0.0.1 and every run is bounded
 * by its duration.
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /** Bodies sent in turn; each request takes the next one (distinct orders need distinct bodies). */
  readonly bodies?: readonly string[];
  readonly connections?: number;
  readonly durationSeconds?: number;
  /** Requests per second over all connections; omit for "as fast as it goes". */
  readonly rate?: number;
}

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly ok: number;
  readonly failed: number;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  const target = new URL(options.url);
  if (!['127.0.0.1', 'localhost', '[::1]'].includes(target.hostname)) {
    throw new Error(`benchmarks send load only to this machine, not to ${target.hostname}`);
  }
  const bodies = options.bodies ?? [];
  let next = 0;
  const result = await autocannon({
    url: options.url,
    connections: options.connections ?? 16,
    duration: options.durationSeconds ?? 8,
    ...(options.rate ? { overallRate: options.rate } : {}),
    timeout: 10,
    requests: [
      {
        method: options.method ?? 'GET',
        headers: options.headers ?? {},
        ...(bodies.length
          ? { setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }) }
          : {}),
      },
    ],
  });
  return {
    requestsPerSecond: result.requests.average,
    p50Ms: result.latency.p50,
    p99Ms: result.latency.p99,
    ok: result['2xx'],
    failed: result.non2xx + result.errors + result.timeouts,
  };
}

export function formatLoad(result: LoadResult): string {
  return `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms} ms, p99 ${result.p99Ms} ms, ${result.ok} ok, ${result.failed} failed`;
}
