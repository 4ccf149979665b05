/**
 * `npm run overload`: payment links at a multiple of the highest steady rate (issue 25's shedding
 * goal). The bench's shop and gateway (their own processes, production-mode gateway), the links
 * scenario's bodies, sent open-loop at `--rate` per second for `--seconds`, every answer timed
 * from the moment it was due:
 *
 *   npm run overload -- --engine postgres --rate 600 --seconds 60
 *
 * Prints how many were answered within 1 s (accepted or refused), the accepted ones' p50/p99,
 * the refusals (503 + Retry-After), the errors, and each process's RSS before and after. Load
 * goes to 127.0.0.1 only.
 */
import http from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BenchContext, Engine } from './lib/context.ts';
import { generateBenchKeys, linkBodies, runTag, SHOP_PUBLIC_URL } from './lib/fixtures.ts';
import { assertLoopback } from './lib/load.ts';
import { findPostgres, schemaSet } from './lib/postgres.ts';
import { startGateway, startShop } from './scenarios/links.ts';

function args(argv: readonly string[]): { engine: Engine; rate: number; seconds: number } {
  const options = { engine: 'sqlite' as Engine, rate: 600, seconds: 30 };
  for (let index = 0; index < argv.length; index++) {
    const value = argv[++index];
    if (argv[index - 1] === '--engine') options.engine = value as Engine;
    else if (argv[index - 1] === '--rate') options.rate = Number(value);
    else if (argv[index - 1] === '--seconds') options.seconds = Number(value);
    else throw new Error('npm run overload -- [--engine sqlite|postgres] [--rate 600] [--seconds 30]');
  }
  return options;
}

const percentile = (sorted: readonly number[], fraction: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(fraction * sorted.length) - 1))] ?? Number.NaN;

async function openLoop(url: string, bodies: readonly string[], rate: number, seconds: number) {
  assertLoopback(url);
  const target = new URL(url);
  const agent = new http.Agent({ keepAlive: true, maxSockets: 4_096 });
  const answers: Array<{ status: number; ms: number; retryAfter: boolean }> = [];
  let errors = 0;
  const total = Math.min(bodies.length, Math.floor(rate * seconds));
  const started = performance.now();
  const pending: Promise<void>[] = [];
  const send = (body: string, dueAt: number) =>
    new Promise<void>((resolve) => {
      const request = http.request(target, {
        method: 'POST',
        agent,
        timeout: 30_000,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), origin: SHOP_PUBLIC_URL },
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
        pending.push(send(bodies[sent]!, started + (sent * 1000) / rate));
        sent++;
      }
      if (sent >= total) return resolve();
      setTimeout(tick, Math.max(0, started + (sent * 1000) / rate - performance.now()));
    };
    tick();
  });
  await Promise.all(pending);
  agent.destroy();
  return { answers, errors, sent: total };
}

const { engine, rate, seconds } = args(process.argv.slice(2));
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
try {
  // Warm up at a tenth of the rate for 3 s, then measure RSS at rest.
  await openLoop(`${shop.url}/pay/links`, linkBodies(Math.ceil(rate * 0.3), `${tag}w`), rate / 10, 3);
  const before = { shop: await shop.rssMb(), gateway: await gateway.rssMb() };
  const { answers, errors, sent } = await openLoop(`${shop.url}/pay/links`, linkBodies(Math.ceil(rate * seconds), `${tag}o`), rate, seconds);
  const after = { shop: await shop.rssMb(), gateway: await gateway.rssMb() };
  const accepted = answers.filter((answer) => answer.status === 201).map((answer) => answer.ms).sort((a, b) => a - b);
  const refused = answers.filter((answer) => answer.status === 503);
  const statuses: Record<string, number> = {};
  for (const answer of answers) statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
  const all = answers.map((answer) => answer.ms).sort((a, b) => a - b);
  console.log(
    JSON.stringify(
      {
        engine,
        rate,
        seconds,
        sent,
        answered: answers.length,
        noAnswer: errors,
        answeredWithin1s: answers.filter((answer) => answer.ms <= 1_000).length,
        statuses,
        acceptedPerSecond: Math.round(accepted.length / seconds),
        acceptedP50Ms: Math.round(percentile(accepted, 0.5)),
        acceptedP99Ms: Math.round(percentile(accepted, 0.99)),
        allP99Ms: Math.round(percentile(all, 0.99)),
        allMaxMs: Math.round(all.at(-1) ?? Number.NaN),
        refusedWithRetryAfter: refused.filter((answer) => answer.retryAfter).length,
        rssMb: { before, after },
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
