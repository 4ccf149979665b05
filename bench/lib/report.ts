/**
 * The results table (markdown): every figure with its ratios to both ceilings and its goal, then
 * the ceilings, what each request costs in RSA operations, the set-up, and every missed goal with
 * its reason.
 */
import type { Ceilings } from './context.ts';
import { ENGINE_NAMES } from './context.ts';
import { ELEMENT_BUDGET_BYTES, type FileSizes } from './element.ts';
import type { LoadResult } from './load.ts';
import type { DrainResult } from '../scenarios/drain.ts';
import type { GatewayCreateResult } from '../scenarios/gateway-create.ts';
import type { CryptoCount, LinkResult } from '../scenarios/links.ts';
import type { MemoryResult } from '../scenarios/memory.ts';
import { unknownPathLines, type UnknownPathResult } from '../scenarios/unknown-path.ts';

export const GOALS = {
  linksOfHttp: 0.3,
  gatewayCreateOfHttp: 0.6,
  halfRateP99Ms: 20,
  notificationsPerSecond: 1_000,
  rssMb: 150,
  elementGzipBytes: ELEMENT_BUDGET_BYTES,
} as const;

export interface ReportData {
  readonly startedAt: Date;
  readonly seconds: number;
  readonly machine: { readonly cores: number; readonly cpu: string; readonly node: string; readonly openssl: string; readonly loadStart: string; readonly loadEnd: string };
  readonly settings: { readonly connections: number; readonly warmUp: number; readonly max: number; readonly half: number; readonly profiled: boolean };
  readonly ceilings: Ceilings;
  readonly links: readonly LinkResult[];
  readonly creates: readonly GatewayCreateResult[];
  readonly drains: readonly DrainResult[];
  readonly memory: MemoryResult | undefined;
  readonly unknownPaths?: UnknownPathResult | undefined;
  readonly element: { readonly sizes: FileSizes; readonly builtAt: Date } | undefined;
  readonly skipped: readonly string[];
}

const int = (value: number) => Math.round(value).toLocaleString('en-US');
const ms = (value: number) => (Number.isFinite(value) ? `${value < 100 ? value.toFixed(1) : value.toFixed(0)} ms` : 'n/a');
const ratio = (value: number) => (Number.isFinite(value) ? value.toFixed(2) : '');
const mark = (met: boolean, goal: string) => (goal.startsWith('(') ? '' : met ? '✅ met' : '❌ **missed**');

interface Row {
  readonly what: string;
  readonly figure: string;
  readonly http?: number;
  readonly crypto?: number;
  readonly goal: string;
  readonly met: boolean;
  readonly reason?: string;
}

function loadFigure(result: LoadResult): string {
  return `${int(result.requestsPerSecond)} req/s, p50 ${ms(result.p50Ms)}, p99 ${ms(result.p99Ms)}`;
}

/**
 * Why a throughput goal was missed, from what was measured: the CPU each server process spent per
 * request against the echo's, and how much of it the RSA operations alone take.
 */
function throughputReason(data: ReportData, goalRatio: number, cpu: Readonly<Record<string, number>>, crypto: CryptoCount, note: string): string {
  const { ceilings } = data;
  const echo = ceilings.httpCpuMsPerRequest;
  const busiest = Object.entries(cpu).sort((a, b) => b[1] - a[1])[0];
  const rsaMs = (crypto.privateOps / ceilings.rsa.privatePerSecond + crypto.publicOps / ceilings.rsa.publicPerSecond) * 1000;
  const budget = echo / goalRatio;
  const parts = [
    `The goal allows ${budget.toFixed(2)} ms of CPU per request in the busiest process (the echo's ${echo.toFixed(2)} ms ÷ ${goalRatio}); ` +
      (busiest ? `the ${busiest[0]} spends ${busiest[1].toFixed(2)} ms (${(busiest[1] / echo).toFixed(1)}× the echo). ` : ''),
    `The RSA operations alone take ${rsaMs.toFixed(2)} ms per request (${crypto.privateOps.toFixed(1)} private at ${int(ceilings.rsa.privatePerSecond)}/s, ` +
      `${crypto.publicOps.toFixed(1)} public at ${int(ceilings.rsa.publicPerSecond)}/s)` +
      (rsaMs >= budget ? ', more than the whole budget: the goal is out of reach on this CPU while the protocol needs them. ' : '. '),
    note,
  ];
  return parts.join('');
}

export function buildRows(data: ReportData): Row[] {
  const { ceilings } = data;
  const http = ceilings.httpPerSecond;
  const rows: Row[] = [];
  for (const link of data.links) {
    const cryptoCeiling = ceilings.rsa.privatePerSecond / link.crypto.privateOps;
    const goal = GOALS.linksOfHttp * http;
    const value = link.throughput.max.requestsPerSecond;
    rows.push({
      what: `Link creation via plug-in + gateway, ${ENGINE_NAMES[link.engine]}`,
      figure: loadFigure(link.throughput.max),
      http: value / http,
      crypto: value / cryptoCeiling,
      goal: `≥ ${GOALS.linksOfHttp} × HTTP ceiling (${int(goal)} req/s)`,
      met: value >= goal,
      reason: throughputReason(data, GOALS.linksOfHttp, link.throughput.cpuMsPerRequest, link.crypto,
        'Besides RSA, a link is two HTTP exchanges served and one made, three durable writes, zod checks of every message; the two processes share the 2 cores with the generator.'),
    });
  }
  for (const create of data.creates) {
    const cryptoCeiling = ceilings.rsa.privatePerSecond / create.crypto.privateOps;
    const goal = GOALS.gatewayCreateOfHttp * http;
    const value = create.throughput.max.requestsPerSecond;
    rows.push({
      what: `Gateway create-order (/gateway/pay), ${ENGINE_NAMES[create.engine]}`,
      figure: loadFigure(create.throughput.max),
      http: value / http,
      crypto: value / cryptoCeiling,
      goal: `≥ ${GOALS.gatewayCreateOfHttp} × HTTP ceiling (${int(goal)} req/s)`,
      met: value >= goal,
      reason: throughputReason(data, GOALS.gatewayCreateOfHttp, create.throughput.cpuMsPerRequest, create.crypto,
        'Besides RSA, a create is a durable insert, a merchant lookup, zod checks, helmet headers and two log lines, on top of the HTTP work the echo does.'),
    });
  }
  for (const [kind, results] of [['Link creation', data.links], ['Gateway create-order', data.creates]] as const) {
    for (const result of results) {
      const { half, halfRate, halfLoopDelay } = result.throughput;
      const loops = Object.entries(halfLoopDelay);
      const worst = Math.max(...loops.map(([, delay]) => delay.maxMs));
      rows.push({
        what: `${kind} at half the max rate (${int(halfRate)} req/s), ${ENGINE_NAMES[result.engine]}`,
        figure:
          `${int(half.requestsPerSecond)} req/s, p50 ${ms(half.p50Ms)}, p99 ${ms(half.p99Ms)}; server event-loop delay p99 / max: ` +
          loops.map(([name, delay]) => `${name} ${ms(delay.p99Ms)} / ${ms(delay.maxMs)}`).join(', '),
        goal: `p99 ≤ ${GOALS.halfRateP99Ms} ms`,
        met: half.p99Ms <= GOALS.halfRateP99Ms,
        reason:
          `at half its maximum rate a server is still busy about half the time, and a request arriving behind another waits for it whole ` +
          `(one event loop; a create holds it for ${Object.values(result.throughput.cpuMsPerRequest).map((v) => v.toFixed(1)).join(' + ')} ms of CPU). ` +
          (worst > GOALS.halfRateP99Ms
            ? `The servers' event loops also stalled up to ${ms(worst)} (GC, or the machine's other work taking the core). `
            : 'The servers\' own event loops did not stall longer than the goal: the tail is queueing, and the other work on this 2-core machine. ') +
          (result.engine === 'postgres'
            ? 'On PostgreSQL every commit also waits for the WAL to reach the disk (synchronous_commit on, fdatasync), and every query is a round trip to the server, which shares the 2 cores.'
            : ''),
      });
    }
  }
  for (const drain of data.drains) {
    const payRate = drain.orders / drain.paySeconds;
    rows.push({
      what: `Paying ${int(drain.orders)} orders through \`gateway.pay()\` (compare-and-set, signed notification, outbox row), ${ENGINE_NAMES[drain.engine]}`,
      figure: `${int(payRate)} payments/s (8 at a time; ${drain.payPrivateOps.toFixed(1)} RSA private ops each, for the notification's platSign)`,
      http: payRate / http,
      crypto: payRate / (ceilings.rsa.privatePerSecond / drain.payPrivateOps),
      goal: '(no goal: how fast the drain benchmark fills the outbox)',
      met: true,
    });
    const clean = drain.lost === 0 && drain.duplicated === 0 && drain.badSignatures === 0 && drain.problems.length === 0;
    rows.push({
      what: `Notification drain, ${int(drain.orders)} paid orders, ${ENGINE_NAMES[drain.engine]}`,
      figure:
        `${int(drain.perSecond)} notifications/s (${drain.drainSeconds.toFixed(1)} s), ${int(drain.distinct)} delivered, ` +
        `${drain.lost} lost, ${drain.duplicated} duplicated, ${drain.badSignatures} bad platSign of ${int(drain.received)} verified`,
      http: drain.perSecond / http,
      goal: `≥ ${int(GOALS.notificationsPerSecond)}/s, 0 lost, 0 duplicated`,
      met: drain.perSecond >= GOALS.notificationsPerSecond && clean,
      reason: clean
        ? `the delivering gateway spends ${drain.cpuMsPerNotification.toFixed(2)} ms of CPU per notification, and its one event loop reaches ` +
          `${int(GOALS.notificationsPerSecond)}/s only under ${(1000 / GOALS.notificationsPerSecond).toFixed(1)} ms: every attempt opens and closes a new connection ` +
          '(by design, each attempt resolves and checks the address afresh), writes its attempt record and the row\'s new state (group-committed), and logs a line.'
        : drain.problems.join('; '),
    });
  }
  if (data.memory) {
    const memory = data.memory;
    const { shipped, empty, tsx } = memory;
    rows.push({
      what: `Gateway RSS holding ${int(memory.orders)} orders (SQLite), after ${int(shipped.found)} signed queries and a forced GC, as installed (dist on plain node)`,
      figure:
        `${shipped.rssMb.toFixed(0)} MB (heap ${shipped.heapUsedMb.toFixed(0)} MB; empty store: ${empty.rssMb.toFixed(0)} MB; ` +
        `database ${memory.databaseMb.toFixed(0)} MB on disk)`,
      goal: `≤ ${GOALS.rssMb} MB`,
      met: shipped.rssMb <= GOALS.rssMb && memory.problems.length === 0,
      reason: memory.problems.length
        ? memory.problems.join('; ')
        : `the orders cost almost nothing (empty store: ${empty.rssMb.toFixed(0)} MB): the process is that big before holding any.`,
    });
    rows.push({
      what: `Same server run through tsx (TypeScript loaded at run time, as the gateway shipped before it had a build)`,
      figure: `${tsx.rssMb.toFixed(0)} MB (heap ${tsx.heapUsedMb.toFixed(0)} MB): tsx costs ${(tsx.rssMb - shipped.rssMb).toFixed(0)} MB`,
      goal: '(for comparison)',
      met: true,
    });
  }
  if (data.element) {
    const { sizes, builtAt } = data.element;
    rows.push({
      what: `\`<pay-button>\` script-tag file (dist/pay-button.js, Lit included, built ${builtAt.toISOString().slice(0, 16).replace('T', ' ')} UTC)`,
      figure: `${int(sizes.gzip)} B gzip (${int(sizes.raw)} B raw, ${int(sizes.brotli)} B brotli)`,
      goal: `≤ ${int(GOALS.elementGzipBytes)} B gzip`,
      met: sizes.gzip <= GOALS.elementGzipBytes,
      reason: 'over budget.',
    });
  }
  return rows;
}

function ceilingLines(data: ReportData): string[] {
  const { ceilings } = data;
  const runs = (values: readonly number[]) => values.map(int).join(' / ');
  const rsaRuns = (pick: (rates: Ceilings['rsa']) => number) => ceilings.rsaRuns.map((rates) => int(pick(rates))).join(' / ');
  return [
    '| Ceiling | Measured (start / end of the run) | Used for ratios (mean) |',
    '|---|---|---|',
    `| HTTP: bare Express 5 JSON echo, 1 process | ${runs(ceilings.httpRuns)} req/s | ${int(ceilings.httpPerSecond)} req/s |`,
    `| RSA-1024 private operations, 1 core, reused KeyObject | ${rsaRuns((r) => r.privatePerSecond)} /s | ${int(ceilings.rsa.privatePerSecond)} /s |`,
    `| RSA-1024 public operations (verify), 1 core | ${rsaRuns((r) => r.publicPerSecond)} /s | ${int(ceilings.rsa.publicPerSecond)} /s |`,
    `| RSA-1024 private operations parsing the PEM on every call | ${rsaRuns((r) => r.privateWithPemParsePerSecond)} /s | (not used: ${(ceilings.rsa.privatePerSecond / ceilings.rsa.privateWithPemParsePerSecond).toFixed(1)}× slower than a reused KeyObject) |`,
  ];
}

function cpuLines(data: ReportData): string[] {
  const echo = data.ceilings.httpCpuMsPerRequest;
  const lines = [
    '| Request | CPU per request, by process (ms, user + system, all threads) | Total | ÷ echo\'s CPU per request |',
    '|---|---|---|---|',
    `| Bare Express echo | echo ${echo.toFixed(2)} | ${echo.toFixed(2)} | 1.00 |`,
  ];
  const row = (what: string, cpu: Readonly<Record<string, number>>) => {
    const total = Object.values(cpu).reduce((sum, value) => sum + value, 0);
    lines.push(`| ${what} | ${Object.entries(cpu).map(([name, value]) => `${name} ${value.toFixed(2)}`).join(', ')} | ${total.toFixed(2)} | ${(total / echo).toFixed(1)} |`);
  };
  for (const link of data.links) row(`Link creation, ${ENGINE_NAMES[link.engine]}`, link.throughput.cpuMsPerRequest);
  for (const create of data.creates) row(`Gateway create-order, ${ENGINE_NAMES[create.engine]}`, create.throughput.cpuMsPerRequest);
  return lines;
}

function cryptoLines(data: ReportData): string[] {
  const lines = ['| Request | RSA private ops per request (counted from real signature lengths) | Public ops | Crypto ceiling (private ops/s on one core ÷ ops per request) |', '|---|---|---|---|'];
  for (const link of data.links) {
    lines.push(`| Link creation, ${ENGINE_NAMES[link.engine]} | ${link.crypto.privateOps.toFixed(2)}: ${link.crypto.detail} | ${link.crypto.publicOps.toFixed(2)} | ${int(data.ceilings.rsa.privatePerSecond / link.crypto.privateOps)} req/s |`);
  }
  for (const create of data.creates) {
    lines.push(`| Gateway create-order, ${ENGINE_NAMES[create.engine]} | ${create.crypto.privateOps.toFixed(2)}: ${create.crypto.detail} | ${create.crypto.publicOps.toFixed(2)} | ${int(data.ceilings.rsa.privatePerSecond / create.crypto.privateOps)} req/s |`);
  }
  return lines;
}

export function renderReport(data: ReportData): string {
  const rows = buildRows(data);
  const { machine, settings } = data;
  const out: string[] = [];
  out.push(`# Benchmark results`, '');
  out.push(
    `${data.startedAt.toISOString()} · ${machine.cores} cores (${machine.cpu}) · Node ${machine.node} (OpenSSL ${machine.openssl}) · ` +
      `load average ${machine.loadStart} at start, ${machine.loadEnd} at end · whole run ${Math.round(data.seconds)} s` +
      (settings.profiled ? ' · **profiled run (--cpu-prof): figures are lower than normal**' : ''),
    '',
    'Rerun: `npm run bench` (or `node --import tsx bench/run.ts`; `--help` for options). Load goes to 127.0.0.1 only.',
    '',
  );
  out.push('| Benchmark | Figure | ÷ HTTP ceiling | ÷ crypto ceiling | Goal | |', '|---|---|---|---|---|---|');
  for (const row of rows) {
    out.push(`| ${row.what} | ${row.figure} | ${row.http === undefined ? '' : ratio(row.http)} | ${row.crypto === undefined ? '' : ratio(row.crypto)} | ${row.goal} | ${mark(row.met, row.goal)} |`);
  }
  out.push('', '## Ceilings (same run, same generator)', '', ...ceilingLines(data), '');
  if (data.links.length || data.creates.length) {
    out.push('## What one request costs in RSA', '', ...cryptoLines(data), '');
    out.push(
      '## What one request costs in CPU (maximum-rate runs)',
      '',
      'Read from /proc for each server process (all its threads). It moves less than req/s when other work shares the machine, though it still rises with it (caches and memory bandwidth are shared too).',
      '',
      ...cpuLines(data),
      '',
    );
  }
  if (data.unknownPaths) out.push(...unknownPathLines(data.unknownPaths));
  const missed = rows.filter((row) => !row.met);
  out.push('## Goals missed', '');
  if (missed.length === 0) out.push('None.');
  for (const row of missed) out.push(`- **${row.what}**: ${row.figure}, goal ${row.goal}. ${(row.reason ?? '').trim()}`);
  const problems = [
    ...data.links.flatMap((r) => r.problems.map((p) => `links ${r.engine}: ${p}`)),
    ...data.creates.flatMap((r) => r.problems.map((p) => `gateway create ${r.engine}: ${p}`)),
    ...data.drains.flatMap((r) => r.problems.map((p) => `drain ${r.engine}: ${p}`)),
    ...(data.memory?.problems.map((p) => `memory: ${p}`) ?? []),
    ...(data.unknownPaths?.problems.map((p) => `unknown paths: ${p}`) ?? []),
  ];
  if (problems.length) out.push('', '## Problems seen during the run', '', ...problems.map((p) => `- ${p}`));
  if (data.skipped.length) out.push('', '## Skipped', '', ...data.skipped.map((s) => `- ${s}`));
  out.push(
    '',
    '## Set-up',
    '',
    `- Generator: autocannon in the bench process, ${settings.connections} connections, ${settings.warmUp} s warm-up, ${settings.max} s at the maximum rate, ` +
      `${settings.half} s at half of it, open loop: requests due at evenly spaced moments (lib/paced.ts, node:http keep-alive; autocannon's \`overallRate\` sends bursts), latency counted from the moment each was due. ` +
      'Latencies are of the 2xx answers. Every run is bounded in time and by its bodies.',
    '- Link creation: the shop (Express 5 + `payButton()` at `/pay`) and the gateway each run in **their own child process**. The shop sets `rateLimit: false` ' +
      '(one client IP sends everything) and `publicUrl: https://toko-kopi.co.id`, whose origin every request sends as `Origin` (an allowed origin: the CSRF check runs and passes). ' +
      'Bodies carry a distinct `idempotencyKey` each and no method (the customer picks on the hosted page); `quote()` answers a fixed price.',
    '- Gateway create-order: signed `POST /gateway/pay` (VA_BCA) bodies with distinct orderNums, signed **before** each run in forked signers with the protocol\'s `sign`.',
    '- The gateway runs in production mode (no sandbox) with its default logger (pino, info, one line per request and per order, to stdout = /dev/null). ' +
      'The drain uses sandbox mode (a loopback receiver is allowed only there) and the worker\'s defaults (10 deliveries in flight, lease 60 s).',
    '- PostgreSQL: every process works in its own schema `bench_<tag>_*`, dropped at the end.',
    '- Drain: orders created through the gateway\'s domain `createOrder` in bulk, paid through `gateway.pay()` in a process without a worker, then a gateway with its worker delivers to a receiver in the bench process that verifies every `platSign` and counts per `platOrderNum`.',
    '- Memory: orders created in bulk through the domain `createOrder` (signing 100,000 HTTP requests would take minutes), then a fresh gateway process on that store serves 2,000 signed `/gateway/query` requests, `gc()` twice (`--expose-gc`), and reports `process.memoryUsage().rss`; ' +
      'once as installed (the gateway\'s dist/ on plain node; the bench server bundled by lib/bundle.ts) and once through tsx, for comparison.',
  );
  return `${out.join('\n')}\n`;
}
