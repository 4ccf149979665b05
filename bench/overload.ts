/**
 * `npm run overload`: payment links at a multiple of the highest steady rate (issues 25 and 31's
 * shedding goals). The bench's shop and gateway (their own processes, production-mode gateway),
 * the links scenario's bodies, sent open-loop, every answer timed from the moment it was due:
 * first at the steady rate (`--steady-rate`, default half of `--rate`) for `--steady-seconds`,
 * then at `--rate` for `--seconds`, then nothing for `--settle-seconds`:
 *
 *   npm run overload -- --engine postgres --rate 600 --seconds 60
 *
 * Prints, for the overload: how many were answered within 1 s (accepted or refused), the accepted
 * ones' p50/p99, the refusals' p99 (503 + Retry-After), the errors, links made per second against
 * the steady run's (goodput), and each process's RSS after the steady run, right after the
 * overload and after settling. Load goes to 127.0.0.1 only.
 */
import http from 'node:http';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, Engine } from './lib/context.ts';
import { generateBenchKeys, linkBodies, runTag, SHOP_PUBLIC_URL } from './lib/fixtures.ts';
import { assertLoopback } from './lib/load.ts';
import { findPostgres, schemaSet } from './lib/postgres.ts';
import { startGateway, startShop } from './scenarios/links.ts';

interface Args {
  engine: Engine;
  rate: number;
  seconds: number;
  steadyRate: number;
  steadySeconds: number;
  settleSeconds: number;
}

const USAGE = 'npm run overload -- [--engine sqlite|postgres] [--rate 600] [--seconds 60] [--steady-rate rate/2] [--steady-seconds 20] [--settle-seconds 30]';

function args(argv: readonly string[]): Args {
  const options = { engine: 'sqlite' as Engine, rate: 600, seconds: 60, steadyRate: Number.NaN, steadySeconds: 20, settleSeconds: 30 };
  const numbers: Record<string, 'rate' | 'seconds' | 'steadyRate' | 'steadySeconds' | 'settleSeconds'> = {
    '--rate': 'rate',
    '--seconds': 'seconds',
    '--steady-rate': 'steadyRate',
    '--steady-seconds': 'steadySeconds',
    '--settle-seconds': 'settleSeconds',
  };
  for (let index = 0; index < argv.length; index += 2) {
    const [name, value] = [argv[index]!, argv[index + 1]];
    if (name === '--engine' && (value === 'sqlite' || value === 'postgres')) options.engine = value;
    else if (numbers[name] && Number(value) > 0) options[numbers[name]] = Number(value);
    else throw new Error(`${name}: not understood. ${USAGE}`);
  }
  if (Number.isNaN(options.steadyRate)) options.steadyRate = options.rate / 2;
  return options;
}

const CLIENT_ADDRESSES = 16;

const percentile = (sorted: readonly number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;

async function openLoop(url: string, bodies: readonly string[], rate: number, seconds: number) {
  assertLoopback(url);
  const target = new URL(url);
  // Customers, not one client: the load comes from 16 loopback addresses (the plug-in caps each one's open requests).
  const agents = Array.from({ length: CLIENT_ADDRESSES }, (_, index) => new http.Agent({ keepAlive: true, maxSockets: 4_096, localAddress: `127.0.0.${2 + index}` }));
  const answers: Array<{ status: number; ms: number; retryAfter: boolean }> = [];
  /** How late this process sent each request (its own lateness, included in every answer's time). */
  const sendLagMs: number[] = [];
  let errors = 0;
  const total = Math.min(bodies.length, Math.floor(rate * seconds));
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const send = (body: string, dueAt: number, agent: http.Agent) =>
    new Promise<void>((resolve) => {
      const request = http.request(target, {
        method: 'POST',
        agent,
        timeout: 30_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), origin: SHOP_PUBLIC_URL, 'x-bench-sent-at': String(performance.timeOrigin + performance.now()) },
      });
      request.on('response', (response) => {
        response.resume();
        response.on('end', () => {
          answers.push({ status: response.statusCode ?? 0, ms: performance.now() - dueAt, retryAfter: response.headers['retry-after'] !== undefined });
          resolve();
        });
      });
      request.on('timeout', () => request.destroy(new Error('timeout')));
      request.on('error', () => {
        errors += 1;
        resolve();
      });
      request.end(body);
    });
  let sent = 0;
  await new Promise<void>((resolve) => {
    const tick = () => {
      const now = performance.now();
      while (sent < total && started + (sent * 1000) / rate <= now) {
        sendLagMs.push(now - (started + (sent * 1000) / rate));
        pending.push(send(bodies[sent]!, started + (sent * 1000) / rate, agents[sent % agents.length]!));
        sent++;
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  for (const agent of agents) agent.destroy();
  return { answers, errors, sent: total, sendLagP99Ms: Math.round(percentile(sendLagMs.sort((a, b) => a - b), 0.99)) };
}

const { engine, rate, seconds, steadyRate, steadySeconds, settleSeconds } = args(process.argv.slice(2));
const tag = runTag();
const dir = mkdtempSync(join(tmpdir(), 'tb-overload-'));
const postgresUrl = engine === 'postgres' ? await findPostgres() : undefined;
if (engine === 'postgres' && !postgresUrl) throw new Error('PostgreSQL does not answer: set DATABASE_URL');
const schemas = postgresUrl ? schemaSet(postgresUrl, tag) : undefined;
const context: BenchContext = {
  keys: generateBenchKeys(),
  tag,
  dir,
  postgres: postgresUrl && schemas ? { url: postgresUrl, schemas } : undefined,
  profileDir: undefined,
  seconds: { warmUp: 0, max: seconds, half: seconds },
  connections: 64,
  log: (line) => console.log(line),
};
const gateway = await startGateway(context, 'gateway-overload', {
  database: engine === 'sqlite' ? { kind: 'sqlite', file: join(dir, 'gateway.sqlite') } : { kind: 'postgres', url: postgresUrl!, schema: schemas!.name('gw_overload') },
  platformPrivateKey: context.keys.platformPrivateKey,
  merchantPublicKey: context.keys.merchantPublicKey,
  sandbox: false,
  worker: true,
});
const shop = await startShop(context, gateway, engine, 'overload');
const ms = (value: number) => Math.round(value);
const ratio = (after: number, before: number) => Math.round((after / before) * 100) / 100;
try {
  // Warm up at a tenth of the rate for 3 s, then the steady rate: its links per second and RSS are the baseline.
  await openLoop(`${shop.url}/pay/links`, linkBodies(Math.ceil(rate * 0.3), `${tag}w`), rate / 10, 3);
  const steady = await openLoop(`${shop.url}/pay/links`, linkBodies(Math.ceil(steadyRate * steadySeconds), `${tag}s`), steadyRate, steadySeconds);
  const steadyPerSecond = steady.answers.filter((answer) => answer.status === 201).length / steadySeconds;
  const before = { shop: await shop.rssMb(), gateway: await gateway.rssMb() };
  await Promise.all([shop.command({ cmd: 'reset' }), gateway.command({ cmd: 'reset' })]);
  // This process times every answer: its own event loop's delay is in every figure.
  const ownLoop = monitorEventLoopDelay({ resolution: 5 });
  ownLoop.enable();
  const { answers, errors, sent, sendLagP99Ms } = await openLoop(`${shop.url}/pay/links`, linkBodies(Math.ceil(rate * seconds), `${tag}o`), rate, seconds);
  const after = { shop: await shop.rssMb(), gateway: await gateway.rssMb() };
  const loopDelay = { shop: await shop.command<{ p99Ms: number; maxMs: number }>({ cmd: 'loop' }), gateway: await gateway.command<{ p99Ms: number; maxMs: number }>({ cmd: 'loop' }) };
  await new Promise((resolve) => setTimeout(resolve, settleSeconds * 1_000));
  const settled = { shop: await shop.rssMb(), gateway: await gateway.rssMb() };
  const accepted = answers.filter((answer) => answer.status === 201).map((answer) => answer.ms).sort((a, b) => a - b);
  const refused = answers.filter((answer) => answer.status === 503);
  const refusedMs = refused.map((answer) => answer.ms).sort((a, b) => a - b);
  const statuses: Record<string, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const all = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  const acceptedPerSecond = accepted.length / seconds;
  console.log(
    JSON.stringify(
      {
        engine,
        steady: { rate: steadyRate, seconds: steadySeconds, linksPerSecond: Math.round(steadyPerSecond), noAnswer: steady.errors, acceptedP99Ms: ms(percentile(steady.answers.filter((answer) => answer.status === 201).map((answer) => answer.ms).sort((a, b) => a - b), 0.99)) },
        rate,
        seconds,
        sent,
        answered: answers.length,
        noAnswer: errors,
        answeredWithin1s: answers.filter((answer) => answer.ms <= 1_000).length,
        statuses,
        acceptedPerSecond: Math.round(acceptedPerSecond),
        goodputVsSteady: ratio(acceptedPerSecond, steadyPerSecond),
        acceptedP50Ms: ms(percentile(accepted, 0.5)),
        acceptedP99Ms: ms(percentile(accepted, 0.99)),
        refusedP50Ms: ms(percentile(refusedMs, 0.5)),
        refusedP99Ms: ms(percentile(refusedMs, 0.99)),
        allP99Ms: ms(percentile(all, 0.99)),
        allMaxMs: ms(all.at(-1) ?? Number.NaN),
        refusedWithRetryAfter: refused.filter((answer) => answer.retryAfter).length,
        loadGeneratorLateP99Ms: sendLagP99Ms,
        eventLoopDelayMs: {
          loadGenerator: { p99: ms(ownLoop.percentile(99) / 1e6), max: ms(ownLoop.max / 1e6) },
          shop: { p99: ms(loopDelay.shop.p99Ms), max: ms(loopDelay.shop.maxMs) },
          gateway: { p99: ms(loopDelay.gateway.p99Ms), max: ms(loopDelay.gateway.maxMs) },
        },
        ...(await shop.command<{ calls: Record<string, number>; inShopMs: unknown }>({ cmd: 'stats' }).then(({ calls, inShopMs }) => ({ shopGatewayCalls: calls, inShopMs }))),
        rssMb: { steady: before, afterOverload: after, [`after${settleSeconds}s`]: settled },
        rssSettledVsSteady: { shop: ratio(settled.shop, before.shop), gateway: ratio(settled.gateway, before.gateway) },
      },
      null,
      2,
    ),
  );
} finally {
  await shop.stop();
  await gateway.stop();
  await schemas?.dropAll();
  rmSync(dir, { recursive: true, force: true });
}
