/**
 * The results (markdown): every figure with its ratio and goal (lib/goals.ts), then the ceilings,
 * what each request costs in CPU against its floor and in RSA operations, every missed goal with
 * its floor, and the set-up.
 */
import type { Ceilings } from './context.ts';
import { ENGINE_NAMES } from './context.ts';
import { buildRows, EXCHANGES, floorMs, int, perProcess, total, type Results } from './goals.ts';
import { unknownPathLines, type UnknownPathResult } from '../scenarios/unknown-path.ts';

export interface ReportData extends Results {
  readonly startedAt: Date;
  readonly seconds: number;
  readonly machine: { readonly cores: number; readonly cpu: string; readonly node: string; readonly openssl: string; readonly loadStart: string; readonly loadEnd: string };
  readonly settings: { readonly connections: number; readonly warmUp: number; readonly max: number; readonly half: number; readonly profiled: boolean };
  readonly unknownPaths?: UnknownPathResult | undefined;
  readonly skipped: readonly string[];
}

const mark = (met: boolean, goal: string) => (goal.startsWith('(') ? (met ? '' : '❌ **problems**') : met ? '✅ met' : '❌ **missed**');

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
    '| Request | CPU per request, by process (ms, user + system, all threads) | Total | ÷ echo | Floor (RSA + HTTP exchanges at the echo\'s cost) | ÷ floor |',
    '|---|---|---|---|---|---|',
    `| Bare Express echo | echo ${echo.toFixed(2)} | ${echo.toFixed(2)} | 1.0× | | |`,
  ];
  const row = (what: string, cpu: Readonly<Record<string, number>>, floor?: number) => {
    const spent = total(cpu);
    const floorCells = floor === undefined ? '| |' : `| ${floor.toFixed(2)} ms (${(floor / echo).toFixed(1)}× echo) | ${(spent / floor).toFixed(2)}× (${(spent - floor).toFixed(2)} ms above) |`;
    lines.push(`| ${what} | ${perProcess(cpu)} | ${spent.toFixed(2)} | ${(spent / echo).toFixed(1)}× ${floorCells}`);
  };
  for (const link of data.links) row(`Payment link, ${ENGINE_NAMES[link.engine]}`, link.throughput.cpuMsPerRequest, floorMs(data.ceilings, link.crypto, EXCHANGES.link));
  for (const create of data.creates) row(`Gateway create-order, ${ENGINE_NAMES[create.engine]}`, create.throughput.cpuMsPerRequest, floorMs(data.ceilings, create.crypto, EXCHANGES.create));
  for (const notify of data.notifies) row(`Plug-in notification (with its confirmation query), ${ENGINE_NAMES[notify.engine]}`, notify.cpuMsPerRequest, floorMs(data.ceilings, notify.crypto, EXCHANGES.notify));
  for (const drain of data.drains) row(`Notification delivered by the gateway, ${ENGINE_NAMES[drain.engine]}`, { gateway: drain.cpuMsPerNotification });
  return lines;
}

function cryptoLines(data: ReportData): string[] {
  const lines = ['| Request | RSA private ops per request (counted from real signature lengths) | Public ops | Crypto ceiling (private ops/s on one core ÷ ops per request) |', '|---|---|---|---|'];
  const row = (what: string, crypto: { privateOps: number; publicOps: number; detail: string }) =>
    lines.push(`| ${what} | ${crypto.privateOps.toFixed(2)}: ${crypto.detail} | ${crypto.publicOps.toFixed(2)} | ${int(data.ceilings.rsa.privatePerSecond / crypto.privateOps)} req/s |`);
  for (const link of data.links) row(`Payment link, ${ENGINE_NAMES[link.engine]}`, link.crypto);
  for (const create of data.creates) row(`Gateway create-order, ${ENGINE_NAMES[create.engine]}`, create.crypto);
  for (const notify of data.notifies) row(`Plug-in notification, ${ENGINE_NAMES[notify.engine]}`, notify.crypto);
  return lines;
}

function setUpLines(settings: ReportData['settings']): string[] {
  return [
    '## Set-up',
    '',
    `- Generator: autocannon in the bench process, ${settings.connections} connections, ${settings.warmUp} s warm-up, ${settings.max} s at the maximum rate, ` +
      `${settings.half} s at half of it, open loop: requests due at evenly spaced moments (lib/paced.ts, node:http keep-alive; autocannon's \`overallRate\` sends bursts), latency counted from the moment each was due. ` +
      'Latencies are of the 2xx answers. Every run is bounded in time and by its bodies; every connection goes to 127.0.0.1.',
    '- Every server runs in **its own child process, on plain node, from the packages\' built `dist/`** (the bench\'s server scripts are bundled by lib/bundle.ts with every package external): what a user installs.',
    '- Payment links: the shop (Express 5 + `payButton()` at `/pay`) and the gateway. The shop sets `rateLimit: false` ' +
      '(one client IP sends everything) and `publicUrl: https://toko-kopi.co.id`, whose origin every request sends as `Origin` (an allowed origin: the CSRF check runs and passes). ' +
      'Bodies carry a distinct `idempotencyKey` each and no method (the customer picks on the hosted page); `quote()` answers a fixed price.',
    '- Gateway create-order: signed `POST /gateway/pay` (VA_BCA) bodies with distinct orderNums, signed **before** each run in forked signers with the protocol\'s `sign`.',
    '- The gateway runs in production mode (no sandbox) with its default logger (pino, info, to stdout = /dev/null) and a DNS lookup that answers loopback only. ' +
      'The drain uses sandbox mode (a loopback receiver is allowed only there) and the worker\'s defaults.',
    '- Plug-in notifications: links created through the shop, paid at the gateway (no worker), and the queued notifications sent by the generator to the shop\'s `/pay/notify`, each once; the shop confirms each with `/gateway/query` before it settles and acknowledges.',
    '- PostgreSQL: every process works in its own schema `bench_<tag>_*`, dropped at the end.',
    '- Drain: orders created through the gateway\'s domain `createOrder` in bulk, paid through `gateway.pay()` in a process without a worker, then a gateway with its worker delivers to a receiver in the bench process that verifies every `platSign` and counts per `platOrderNum`.',
    '- Memory: orders created in bulk through the domain `createOrder` in the bin\'s data directory, then `tombolbayar-gateway` (the package\'s bin) starts on it and serves 2,000 signed `/gateway/query` requests; RSS from /proc two seconds later, no forced GC.',
  ];
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
    'Rerun: `npm run bench` (`-- --help` for options). Load goes to 127.0.0.1 only.',
    '',
  );
  out.push('| Figure | Measured | Ratio | Goal | |', '|---|---|---|---|---|');
  for (const row of rows) out.push(`| ${row.what} | ${row.figure} | ${row.ratio ?? ''} | ${row.goal} | ${mark(row.met, row.goal)} |`);
  out.push('', '## Ceilings (same run, same generator)', '', ...ceilingLines(data), '');
  if (data.links.length || data.creates.length || data.notifies.length || data.drains.length) {
    out.push(
      '## What one request costs in CPU (maximum-rate runs)',
      '',
      'Read from /proc for each server process (all its threads). It moves less than req/s when other work shares the machine, though it still rises with it (caches and memory bandwidth are shared too).',
      '',
      ...cpuLines(data),
      '',
    );
  }
  if (data.links.length || data.creates.length) out.push('## What one request costs in RSA', '', ...cryptoLines(data), '');
  if (data.unknownPaths) out.push(...unknownPathLines(data.unknownPaths));
  const missed = rows.filter((row) => !row.met);
  out.push('## Goals missed', '');
  if (missed.length === 0) out.push('None.');
  for (const row of missed) out.push(`- **${row.what}**: ${row.figure}${row.ratio ? ` (${row.ratio})` : ''}, goal ${row.goal}: ${(row.reason ?? '').trim()}`);
  const problems = [
    ...data.links.flatMap((r) => r.problems.map((p) => `links ${r.engine}: ${p}`)),
    ...data.creates.flatMap((r) => r.problems.map((p) => `gateway create ${r.engine}: ${p}`)),
    ...data.drains.flatMap((r) => r.problems.map((p) => `drain ${r.engine}: ${p}`)),
    ...data.notifies.flatMap((r) => r.problems.map((p) => `notify ${r.engine}: ${p}`)),
    ...(data.memory?.problems.map((p) => `memory: ${p}`) ?? []),
    ...(data.unknownPaths?.problems.map((p) => `unknown paths: ${p}`) ?? []),
  ];
  if (problems.length) out.push('', '## Problems seen during the run', '', ...problems.map((p) => `- ${p}`));
  if (data.skipped.length) out.push('', '## Skipped', '', ...data.skipped.map((s) => `- ${s}`));
  out.push('', ...setUpLines(settings));
  return `${out.join('\n')}\n`;
}
