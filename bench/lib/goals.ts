/**
 * The goals every run is judged against, and for each figure its row of the results table: the
 * figure, its goal, and when missed, the floor it sits on. A floor is what the work cannot avoid on
 * this machine, measured in the same run: the RSA operations the protocol requires (at the
 * measured private and public rates) plus one bare Express echo's CPU for every HTTP exchange a
 * request needs (served or made). A figure above its floor has overhead left to remove; a goal
 * below the floor cannot be met on this CPU while the protocol needs those operations.
 */
import type { Ceilings, Engine } from './context.ts';
import { ENGINE_NAMES } from './context.ts';
import { ELEMENT_BUDGET_BYTES, type FileSizes } from './element.ts';
import type { LoadResult } from './load.ts';
import type { DrainResult } from '../scenarios/drain.ts';
import type { GatewayCreateResult } from '../scenarios/gateway-create.ts';
import type { CryptoCount, LinkResult } from '../scenarios/links.ts';
import type { MemoryResult } from '../scenarios/memory.ts';
import type { NotifyResult } from '../scenarios/notify.ts';
import type { Costs, ObservabilityResult } from '../scenarios/observability.ts';

/** Issue 24's goals: CPU against each request's own floor, measured in the same run. */
export const GOALS = {
  /** CPU per link (plug-in + gateway) ÷ its floor. */
  linkOfFloor: { sqlite: 1.5, postgres: 1.8 },
  /** CPU per gateway create-order ÷ its floor. */
  createOfFloor: { sqlite: 1.5, postgres: 1.8 },
  /** CPU per plug-in notification (verify, confirm by query, settle; both processes) ÷ its floor. */
  notifyOfFloor: { sqlite: 1.5, postgres: 1.8 },
  /** Link throughput ÷ echo throughput, same run. */
  linksOfHttp: { sqlite: 0.15, postgres: 0.12 },
  /** p99 at half the maximum rate, by request, on both engines. */
  halfRateP99Ms: { links: 15, create: 8 },
  notificationsPerSecond: { sqlite: 2_000, postgres: 1_500 },
  rssMb: 120,
  /** CPU per link and per notification with metrics and an SDK tracer, ÷ without, − 1 (issue 34). */
  observabilityOverhead: 0.03,
  elementGzipBytes: ELEMENT_BUDGET_BYTES,
} as const;

/** HTTP exchanges one request needs, each priced at the echo's CPU in the floor. */
export const EXCHANGES = { link: 3, create: 1, notify: 3 } as const;

export interface Row {
  readonly what: string;
  readonly figure: string;
  /** The figure as a ratio (to the echo), when it is one. */
  readonly ratio?: string;
  readonly goal: string;
  readonly met: boolean;
  readonly reason?: string;
}

export interface Results {
  readonly ceilings: Ceilings;
  readonly links: readonly LinkResult[];
  readonly creates: readonly GatewayCreateResult[];
  readonly drains: readonly DrainResult[];
  readonly notifies: readonly NotifyResult[];
  readonly memory: MemoryResult | undefined;
  readonly observability: readonly ObservabilityResult[];
  readonly element: { readonly sizes: FileSizes; readonly builtAt: Date } | undefined;
}

export const int = (value: number) => Math.round(value).toLocaleString('en-US');
export const ms = (value: number) => (Number.isFinite(value) ? `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ms` : 'n/a');
export const total = (cpu: Readonly<Record<string, number>>) => Object.values(cpu).reduce((sum, value) => sum + value, 0);
export const perProcess = (cpu: Readonly<Record<string, number>>) => Object.entries(cpu).map(([name, value]) => `${name} ${value.toFixed(2)}`).join(' + ');

/** RSA CPU of one request, ms, at this run's measured rates. */
export function rsaMs(ceilings: Ceilings, crypto: Pick<CryptoCount, 'privateOps' | 'publicOps'>): number {
  return (crypto.privateOps / ceilings.rsa.privatePerSecond + crypto.publicOps / ceilings.rsa.publicPerSecond) * 1000;
}

/** The floor of a request in ms: its RSA operations plus `exchanges` echoes. */
export function floorMs(ceilings: Ceilings, crypto: Pick<CryptoCount, 'privateOps' | 'publicOps'>, exchanges: number): number {
  return rsaMs(ceilings, crypto) + exchanges * ceilings.httpCpuMsPerRequest;
}

function cpuRow(ceilings: Ceilings, what: string, engine: Engine, cpu: Readonly<Record<string, number>>, crypto: CryptoCount, exchanges: number, goal: number): Row {
  const echo = ceilings.httpCpuMsPerRequest;
  const spent = total(cpu);
  const floor = floorMs(ceilings, crypto, exchanges);
  return {
    what: `${what}, ${ENGINE_NAMES[engine]}`,
    figure: `${perProcess(cpu)} = ${spent.toFixed(2)} ms ÷ floor ${floor.toFixed(2)} ms (echo ${echo.toFixed(2)} ms: ${(spent / echo).toFixed(1)}× it)`,
    ratio: `${(spent / floor).toFixed(2)}×`,
    goal: `≤ ${goal}× the floor`,
    met: spent / floor <= goal,
    reason:
      `the floor is ${rsaMs(ceilings, crypto).toFixed(2)} ms of RSA (${crypto.privateOps.toFixed(1)} private, ${crypto.publicOps.toFixed(1)} public) ` +
      `plus ${exchanges} HTTP exchange${exchanges > 1 ? 's' : ''} at the echo's ${echo.toFixed(2)} ms; ${(spent - floor).toFixed(2)} ms above it, ` +
      `${(spent - goal * floor).toFixed(2)} ms over the goal (see "Where the CPU goes" in bench/README.md).`,
  };
}

function halfRateRow(kind: string, result: LinkResult | GatewayCreateResult, goalMs: number): Row {
  const { half, halfRate, halfLoopDelay } = result.throughput;
  const loops = Object.entries(halfLoopDelay);
  const worst = Math.max(...loops.map(([, delay]) => delay.maxMs));
  const longestGc = Math.max(...loops.map(([, delay]) => delay.gcMaxMs));
  return {
    what: `${kind} at half the max rate (${int(halfRate)} req/s), ${ENGINE_NAMES[result.engine]}`,
    figure:
      `p50 ${ms(half.p50Ms)}, p99 ${ms(half.p99Ms)}; event-loop delay max ` +
      loops.map(([name, delay]) => `${name} ${ms(delay.maxMs)} (longest GC ${ms(delay.gcMaxMs)}, a ${delay.gcMaxKind}, preempted ${int(delay.preempted)}×)`).join(', '),
    goal: `p99 ≤ ${goalMs} ms`,
    met: half.p99Ms <= goalMs,
    reason:
      worst <= goalMs
        ? 'no server stalled longer than the goal: the tail is queueing behind other requests on the 2 shared cores.'
        : longestGc >= worst / 2
          ? `a server's event loop stalled up to ${ms(worst)}, GC pauses up to ${ms(longestGc)}: the tail is those stalls.`
          : `a server's event loop stalled up to ${ms(worst)} while no GC pause exceeded ${ms(longestGc)}: the servers were waiting for a core ` +
            '(load generator, shop, gateway and database share 2), and the tail is those waits.',
  };
}

function loadFigure(result: LoadResult): string {
  return `${int(result.requestsPerSecond)} req/s, p50 ${ms(result.p50Ms)}, p99 ${ms(result.p99Ms)}`;
}

const VARIANT_NAMES = ['traced', 'context', 'metrics', 'plain'] as const;

function observabilityRow(what: string, result: ObservabilityResult, cost: Costs): Row {
  const percent = (value: number) => `${value >= 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;
  const { cpuMs, requests, overhead } = cost;
  return {
    what: `${what} with metrics and an SDK tracer, ${ENGINE_NAMES[result.engine]}`,
    figure:
      `${cpuMs.traced.toFixed(3)} ms ÷ ${cpuMs.plain.toFixed(3)} ms without (both processes). Metrics alone ${percent(overhead.metrics)}; ` +
      `the SDK's context manager alone (AsyncLocalStorage) ${percent(overhead.context)}; the recorded spans on top of it ${percent(overhead.spans)}; ` +
      `${VARIANT_NAMES.map((variant) => int(requests[variant])).join(' / ')} requests (${VARIANT_NAMES.join(' / ')}) in ${result.rounds} interleaved rounds; ${result.spansPerRequest.toFixed(1)} spans each` +
      (result.problems.length ? `; problems: ${result.problems.join('; ')}` : ''),
    ratio: percent(overhead.traced),
    goal: `≤ +${GOALS.observabilityOverhead * 100} %`,
    met: overhead.traced <= GOALS.observabilityOverhead && result.problems.length === 0,
    reason: 'the spans and metric updates of each request, and the SDK\'s context propagation, cost more than the goal (profile with `npm run bench -- --only observability --profile`).',
  };
}

export function buildRows(results: Results): Row[] {
  const { ceilings } = results;
  const rows: Row[] = [];
  for (const result of results.observability) {
    rows.push(observabilityRow('CPU per payment link', result, result.link));
    rows.push(observabilityRow('CPU per plug-in notification', result, result.notify));
  }
  for (const link of results.links) {
    rows.push(cpuRow(ceilings, 'CPU per payment link, plug-in + gateway', link.engine, link.throughput.cpuMsPerRequest, link.crypto, EXCHANGES.link, GOALS.linkOfFloor[link.engine]));
  }
  for (const create of results.creates) {
    rows.push(cpuRow(ceilings, 'CPU per gateway create-order', create.engine, create.throughput.cpuMsPerRequest, create.crypto, EXCHANGES.create, GOALS.createOfFloor[create.engine]));
  }
  for (const notify of results.notifies) {
    rows.push(cpuRow(ceilings, 'CPU per plug-in notification (verify, confirm by query, settle), plug-in + gateway', notify.engine, notify.cpuMsPerRequest, notify.crypto, EXCHANGES.notify, GOALS.notifyOfFloor[notify.engine]));
  }
  for (const link of results.links) {
    const value = link.throughput.max.requestsPerSecond / ceilings.httpPerSecond;
    rows.push({
      what: `Link throughput ÷ echo throughput, ${ENGINE_NAMES[link.engine]}`,
      figure: `${loadFigure(link.throughput.max)} ÷ ${int(ceilings.httpPerSecond)} req/s`,
      ratio: value.toFixed(2),
      goal: `≥ ${GOALS.linksOfHttp[link.engine]}`,
      met: value >= GOALS.linksOfHttp[link.engine],
      reason: 'the shop, the gateway and the load generator share the 2 cores: the rate follows the CPU per link above.',
    });
  }
  for (const result of results.links) rows.push(halfRateRow('Links', result, GOALS.halfRateP99Ms.links));
  for (const result of results.creates) rows.push(halfRateRow('Create-order', result, GOALS.halfRateP99Ms.create));
  for (const drain of results.drains) {
    const clean = drain.lost === 0 && drain.duplicated === 0 && drain.badSignatures === 0 && drain.problems.length === 0;
    const goal = GOALS.notificationsPerSecond[drain.engine];
    rows.push({
      what: `Notification drain, ${int(drain.orders)} paid orders, ${ENGINE_NAMES[drain.engine]}`,
      figure:
        `${int(drain.perSecond)}/s (${drain.cpuMsPerNotification.toFixed(2)} ms gateway CPU each), ${int(drain.distinct)} delivered, ` +
        `${drain.lost} lost, ${drain.duplicated} duplicated, ${drain.badSignatures} bad platSign`,
      goal: `≥ ${int(goal)}/s, 0 lost, 0 duplicated`,
      met: drain.perSecond >= goal && clean,
      reason: clean ? `one event loop delivers ${int(goal)}/s only under ${(1000 / goal).toFixed(2)} ms of CPU each (wall-clock, the receiver shares the cores).` : drain.problems.join('; '),
    });
  }
  for (const notify of results.notifies) {
    const clean = notify.problems.length === 0;
    rows.push({
      what: `Plug-in notification path (verify, confirm with the gateway, settle, onPaid), ${ENGINE_NAMES[notify.engine]}`,
      figure: `${loadFigure(notify.max)}; CPU ${perProcess(notify.cpuMsPerRequest)} ms per notification; ${notify.queriesPerNotification.toFixed(2)} queries each; onPaid ${int(notify.onPaidCalls)}×`,
      goal: '(no goal) every one acknowledged, onPaid once each',
      met: clean,
      reason: notify.problems.join('; '),
    });
  }
  if (results.memory) {
    const { shipped, empty, orders, databaseMb, problems } = results.memory;
    rows.push({
      what: `\`tombolbayar-gateway\` as installed (bin, dist on plain node), SQLite holding ${int(orders)} orders, after ${int(shipped.queries.ok)} signed queries`,
      figure: `RSS ${shipped.rssMb.toFixed(0)} MB (peak ${shipped.peakMb.toFixed(0)} MB; empty store ${empty.rssMb.toFixed(0)} MB; database ${databaseMb.toFixed(0)} MB on disk)`,
      goal: `≤ ${GOALS.rssMb} MB`,
      met: shipped.rssMb <= GOALS.rssMb && problems.length === 0,
      reason: problems.length ? problems.join('; ') : `the empty store already takes ${empty.rssMb.toFixed(0)} MB.`,
    });
  }
  if (results.element) {
    const { sizes, builtAt } = results.element;
    rows.push({
      what: `\`<pay-button>\` script-tag file (Lit included, built ${builtAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      figure: `${int(sizes.gzip)} B gzip (${int(sizes.raw)} B raw, ${int(sizes.brotli)} B brotli)`,
      goal: `≤ ${int(GOALS.elementGzipBytes)} B gzip`,
      met: sizes.gzip <= GOALS.elementGzipBytes,
      reason: 'over budget.',
    });
  }
  return rows;
}
