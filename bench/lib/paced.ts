/**
 * Latency at a given rate: requests sent at evenly spaced moments (open loop), each on a free
 * keep-alive connection, latency measured from the moment it was due (so a generator or server
 * that falls behind shows it, no coordinated omission).
 *
 * autocannon's `overallRate` is not used for this: each of its connections sends back to back
 * until its share of the second is used, then pauses, so "half the rate" is really full speed half
 * of the time, and its p99 is the saturated one.
 */
import http from 'node:http';
import { assertLoopback, type LoadResult } from './load.ts';

export interface PacedOptions {
  readonly url: string;
  readonly headers?: Record<string, string>;
  /** One body per request, each used once; the run stops early when they are used up. */
  readonly bodies: readonly string[];
  readonly rate: number;
  readonly durationSeconds: number;
  /** Most requests in flight; a request due while this many are waiting is counted as failed. */
  readonly maxInFlight?: number;
}

function percentile(sorted: Float64Array, fraction: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))]!;
}

export async function paced(options: PacedOptions): Promise<LoadResult> {
  assertLoopback(options.url);
  const target = new URL(options.url);
  const maxInFlight = options.maxInFlight ?? 256;
  const agent = new http.Agent({ keepAlive: true, maxSockets: maxInFlight });
  const latencies: number[] = [];
  let ok = 0;
  let failed = 0;
  let inFlight = 0;
  let sent = 0;
  const intervalMs = 1000 / options.rate;
  const total = Math.min(options.bodies.length, Math.floor(options.rate * options.durationSeconds));
  const started = performance.now();

  const send = (body: string, dueAt: number) =>
    new Promise<void>((resolve) => {
      inFlight++;
      const finish = (success: boolean) => {
        inFlight--;
        if (success) {
          ok++;
          latencies.push(performance.now() - dueAt);
        } else failed++;
        resolve();
      };
      const request = http.request(target, {
        method: 'POST',
        agent,
        timeout: 10_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), ...options.headers },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => finish((response.statusCode ?? 0) >= 200 && (response.statusCode ?? 0) < 300));
        response.on('error', () => finish(false));
      });
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () => finish(false));
      request.end(body);
    });

  const pending: Promise<void>[] = [];
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + sent * intervalMs <= now) {
        const dueAt = started + sent * intervalMs;
        const body = options.bodies[sent]!;
        sent++;
        if (inFlight >= maxInFlight) failed++;
        else pending.push(send(body, dueAt));
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + sent * intervalMs - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  agent.destroy();
  const seconds = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  return {
    requestsPerSecond: ok / seconds,
    p50Ms: percentile(sorted, 0.5),
    p99Ms: percentile(sorted, 0.99),
    maxMs: sorted.length ? sorted[sorted.length - 1]! : Number.NaN,
    ok,
    failed,
    seconds,
    bodiesExhausted: total < Math.floor(options.rate * options.durationSeconds),
  };
}
