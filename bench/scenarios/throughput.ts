/**
 * The three runs of a throughput benchmark: a warm-up (JIT, connection pools, SQLite pages), the
 * run at the maximum rate (autocannon, closed loop), and a second run at half that rate, evenly
 * paced (lib/paced.ts), for the latency a server has when it is not saturated. Bodies are made before each run (pre-signed when they need a signature), so
 * the generator spends no CPU making them while it measures.
 */
import type { ChildServer } from '../lib/children.ts';
import type { BenchContext } from '../lib/context.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { paced } from '../lib/paced.ts';
import type { LoopDelay } from '../servers/ipc.ts';

export interface BodySource {
  /** Whether bodies are expensive to make (signed): then only as many as the run needs are made. */
  readonly costly: boolean;
  take(count: number): Promise<string[]>;
}

export interface Throughput {
  readonly warmUp: LoadResult;
  readonly max: LoadResult;
  readonly half: LoadResult;
  readonly halfRate: number;
  /**
   * CPU time each server process used per answered request during the maximum-rate run (user +
   * system, from /proc): unlike req/s, barely affected by other work on the machine.
   */
  readonly cpuMsPerRequest: Readonly<Record<string, number>>;
  /** Event-loop delay of each server during the half-rate run: stalls of the server itself. */
  readonly halfLoopDelay: Readonly<Record<string, LoopDelay>>;
}

/** CPU ms per request of each server over `run` (the request count comes from its result). */
export async function cpuPerRequest<T extends { ok: number }>(servers: Readonly<Record<string, ChildServer>>, run: () => Promise<T>) {
  const before = Object.fromEntries(await Promise.all(Object.entries(servers).map(async ([name, server]) => [name, await server.cpuSeconds()] as const)));
  const result = await run();
  const cpuMsPerRequest: Record<string, number> = {};
  for (const [name, server] of Object.entries(servers)) {
    cpuMsPerRequest[name] = ((await server.cpuSeconds()) - before[name]!) * 1000 / Math.max(1, result.ok);
  }
  return { result, cpuMsPerRequest };
}

export interface ThroughputHooks {
  /** Before the maximum-rate run (reset counters). */
  beforeMax?(): Promise<void>;
  /** After the maximum-rate run (read counters). */
  afterMax?(result: LoadResult): Promise<void>;
  afterHalf?(result: LoadResult): Promise<void>;
}

export async function maxAndHalf(
  context: BenchContext,
  label: string,
  target: { url: string; headers?: Record<string, string> },
  source: BodySource,
  servers: Readonly<Record<string, ChildServer>>,
  hooks: ThroughputHooks = {},
): Promise<Throughput> {
  const { warmUp: warmSeconds, max: maxSeconds, half: halfSeconds } = context.seconds;
  const connections = context.connections;
  const warmBodies = await source.take(source.costly ? 800 * warmSeconds : 20_000 * warmSeconds);
  const warmUp = await load({ ...target, bodies: warmBodies, durationSeconds: warmSeconds, connections });
  context.log(`  ${label} warm-up: ${formatLoad(warmUp)}`);

  const margin = source.costly ? 1.6 : 10;
  const maxBodies = await source.take(Math.ceil(Math.max(warmUp.requestsPerSecond, 50) * maxSeconds * margin) + 500);
  await hooks.beforeMax?.();
  const { result: max, cpuMsPerRequest } = await cpuPerRequest(servers, () => load({ ...target, bodies: maxBodies, durationSeconds: maxSeconds, connections }));
  const cpu = Object.entries(cpuMsPerRequest).map(([name, value]) => `${name} ${value.toFixed(2)}`).join(', ');
  context.log(`  ${label} max: ${formatLoad(max)}; CPU ms per request: ${cpu}`);
  await hooks.afterMax?.(max);

  const halfRate = Math.max(1, Math.round(max.requestsPerSecond / 2));
  const halfBodies = await source.take(Math.ceil(halfRate * halfSeconds * 1.15) + 200);
  for (const server of Object.values(servers)) await server.command({ cmd: 'reset' });
  const half = await paced({ ...target, bodies: halfBodies, durationSeconds: halfSeconds, rate: halfRate });
  const halfLoopDelay: Record<string, LoopDelay> = {};
  for (const [name, server] of Object.entries(servers)) halfLoopDelay[name] = await server.command({ cmd: 'loop' });
  const loops = Object.entries(halfLoopDelay).map(([name, delay]) => `${name} p99 ${delay.p99Ms.toFixed(1)} max ${delay.maxMs.toFixed(1)} (longest GC ${delay.gcMaxMs.toFixed(1)} ${delay.gcMaxKind}, preempted ${delay.preempted}×)`).join(', ');
  context.log(`  ${label} at ${halfRate} req/s: ${formatLoad(half)}; event-loop delay ms: ${loops}`);
  await hooks.afterHalf?.(half);
  return { warmUp, max, half, halfRate, cpuMsPerRequest, halfLoopDelay };
}
