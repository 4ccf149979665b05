/**
 * One way to put load on a local server, shared by every benchmark so that each ratio compares
 * figures taken with the same generator (autocannon, in this process). Traffic goes only to the
 * loopback address and every run is bounded by its duration (and by the bodies it was given).
 */
import autocannon from 'autocannon';

export interface LoadOptions {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  /**
   * Bodies sent in turn, each at most once: a run stops when they are used up (distinct orders
   * need distinct bodies; a repeated one would measure a refusal or a replay instead).
   */
  readonly bodies?: readonly string[];
  /** A body for every request (the echo). */
  readonly body?: string;
  readonly connections?: number;
  readonly durationSeconds: number;
  /** Requests per second over all connections; omit for "as fast as it goes". */
  readonly rate?: number;
  /** The status that counts as answered (a refusal benchmark expects 404); default any 2xx. */
  readonly expectStatus?: number;
}

export interface LoadResult {
  /** Answers with a 2xx status per second of run time. */
  readonly requestsPerSecond: number;
  /** Latency percentiles of the 2xx answers, in ms (from autocannon's own timings, unrounded). */
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  readonly ok: number;
  /** Non-2xx answers, socket errors and timeouts. */
  readonly failed: number;
  readonly seconds: number;
  /** True when the run ended because its bodies ran out, not because its time was up. */
  readonly bodiesExhausted: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/** Refuses any target but this machine: load is never sent anywhere else. */
export function assertLoopback(url: string): void {
  const target = new URL(url);
  if (!LOOPBACK.has(target.hostname)) throw new Error(`benchmarks send load only to this machine, not to ${target.hostname}`);
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1));
  return sorted[index]!;
}

export async function load(options: LoadOptions): Promise<LoadResult> {
  assertLoopback(options.url);
  const bodies = options.bodies;
  let next = 0;
  const latencies: number[] = [];
  const started = performance.now();
  const instance = autocannon({
    url: options.url,
    connections: options.connections ?? 16,
    duration: options.durationSeconds,
    ...(bodies ? { amount: bodies.length } : {}),
    ...(options.rate ? { overallRate: options.rate } : {}),
    timeout: 10,
    method: options.method ?? 'POST',
    headers: { 'content-type': 'application/json', ...options.headers },
    ...(options.body !== undefined ? { body: options.body } : {}),
    ...(bodies
      ? {
          requests: [
            {
              method: options.method ?? 'POST',
              setupRequest: (request) => ({ ...request, body: bodies[next++ % bodies.length] }),
            },
          ],
        }
      : {}),
  });
  const expected = options.expectStatus;
  const counts = (statusCode: number) => (expected === undefined ? statusCode >= 200 && statusCode < 300 : statusCode === expected);
  let answered = 0;
  let other = 0;
  instance.on('response', (_client: unknown, statusCode: number, _bytes: number, responseTime: number) => {
    if (counts(statusCode)) {
      answered++;
      latencies.push(responseTime);
    } else other++;
  });
  // With `amount`, autocannon ignores `duration`: the time bound is enforced here.
  const timer = bodies ? setTimeout(() => instance.stop(), options.durationSeconds * 1000) : undefined;
  const result = await instance;
  clearTimeout(timer);
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  const ok = expected === undefined ? result['2xx'] : answered;
  return {
    requestsPerSecond: ok / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    ok,
    failed: (expected === undefined ? result.non2xx : other) + result.errors + result.timeouts,
    seconds,
    bodiesExhausted: bodies !== undefined && next >= bodies.length && seconds < options.durationSeconds - 0.5,
  };
}

export function formatLoad(result: LoadResult): string {
  return `${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(1)} ms, p99 ${result.p99Ms.toFixed(1)} ms, ${result.ok} ok, ${result.failed} failed in ${result.seconds.toFixed(1)} s${result.bodiesExhausted ? ' (bodies used up)' : ''}`;
}
