/**
 * Memory: the resident set of `tombolbayar-gateway` as a user runs it (the package's bin, its
 * compiled dist/ on plain node, default settings) whose SQLite store holds N orders, after it
 * served signed queries about them and then sat idle for a moment. The orders are created in bulk
 * through the gateway's domain `createOrder` (lib/gateway-domain.ts), not over HTTP: signing N
 * requests would take minutes. No GC is forced: this is what the process holds in its own rhythm;
 * the peak (VmHWM) is reported beside it.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { BENCH_NODE_FLAGS } from '../lib/children.ts';
import type { BenchContext } from '../lib/context.ts';
import { MERCHANT_CODE, queryFields } from '../lib/fixtures.ts';
import { seedOrders } from '../lib/gateway-domain.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { signBodies } from '../lib/sign-pool.ts';

interface Measured {
  readonly rssMb: number;
  readonly peakMb: number;
  readonly queries: LoadResult;
  /** What the gateway answered a sample query: SUCCESS when the store holds the orders. */
  readonly sampleAnswer: string;
}

export interface MemoryResult {
  readonly orders: number;
  readonly seedSeconds: number;
  readonly databaseMb: number;
  /** The installed bin, its store holding the orders. */
  readonly shipped: Measured;
  /** The same with an empty store. */
  readonly empty: Measured;
  readonly problems: string[];
}

const QUERIES = 2_000;
const SETTLE_MS = 2_000;
const BIN = new URL('../../packages/gateway/bin/tombolbayar-gateway.js', import.meta.url).pathname;

function statusKb(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? 0);
}

/** Start the bin on `dataDir` and wait for its "listening on URL" line. */
async function startBin(dataDir: string, keys: { platformKeyFile: string; merchantKeyFile: string }): Promise<{ child: ChildProcess; url: string }> {
  const args = [...BENCH_NODE_FLAGS, BIN, '--port', '0', '--data', dataDir, '--platform-key', keys.platformKeyFile, '--merchant', `${MERCHANT_CODE}=${keys.merchantKeyFile}`];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, DATABASE_URL: '', PORT: '' } });
  const lines = createInterface({ input: child.stdout! });
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('tombolbayar-gateway did not start within 60 s')), 60_000);
    lines.on('line', (line) => {
      const found = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(line);
      if (found) {
        clearTimeout(timer);
        resolve(found[1]!);
      }
    });
    child.once('exit', (code) => reject(new Error(`tombolbayar-gateway exited with ${code} before listening`)));
  });
  return { child, url };
}

async function measure(context: BenchContext, label: string, dataDir: string, keys: { platformKeyFile: string; merchantKeyFile: string }, bodies: string[]): Promise<Measured> {
  const { child, url } = await startBin(dataDir, keys);
  try {
    const queries = await load({ url: `${url}/gateway/query`, bodies, durationSeconds: 10, connections: 8 });
    const sample = await fetch(`${url}/gateway/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: bodies[0] });
    const sampleAnswer = String(((await sample.json()) as { platRespCode?: unknown }).platRespCode);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const rssMb = statusKb(child.pid!, 'VmRSS') / 1024;
    const peakMb = statusKb(child.pid!, 'VmHWM') / 1024;
    context.log(`  memory ${label}: ${formatLoad(queries)} -> RSS ${rssMb.toFixed(1)} MB (peak ${peakMb.toFixed(1)} MB)`);
    return { rssMb, peakMb, queries, sampleAnswer };
  } finally {
    child.kill('SIGTERM');
    await Promise.race([once(child, 'exit'), new Promise((resolve) => setTimeout(resolve, 10_000))]);
  }
}

export async function runMemory(context: BenchContext, orders: number): Promise<MemoryResult> {
  const problems: string[] = [];
  const prefix = `M${context.tag}`;
  const keyDir = join(context.dir, 'memory-keys');
  mkdirSync(keyDir, { recursive: true, mode: 0o700 });
  const keys = { platformKeyFile: join(keyDir, 'platform-private.pem'), merchantKeyFile: join(keyDir, 'merchant-public.pem') };
  writeFileSync(keys.platformKeyFile, context.keys.platformPrivateKey, { mode: 0o600 });
  writeFileSync(keys.merchantKeyFile, context.keys.merchantPublicKey);
  const orderNums = Array.from({ length: QUERIES }, (_, index) => `${prefix}${String(Math.floor((index * orders) / QUERIES)).padStart(8, '0')}`);
  const bodies = await signBodies(queryFields(orderNums), context.keys.merchantPrivateKey);

  const empty = await measure(context, 'installed bin, empty store', join(context.dir, 'memory-empty'), keys, bodies);
  const dataDir = join(context.dir, 'memory');
  const file = join(dataDir, 'gateway.sqlite');
  mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  const seeded = await seedOrders({
    database: { kind: 'sqlite', file },
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    count: orders,
    orderNumPrefix: prefix,
    notifyUrl: 'https://toko-kopi.co.id/pay/notify',
    method: 'VA_BCA',
    sandbox: false,
  });
  context.log(`  memory: created ${orders} orders in ${seeded.seconds.toFixed(1)} s (domain createOrder, transactions of 1000)`);
  const shipped = await measure(context, `installed bin, ${orders} orders`, dataDir, keys, bodies);
  if (shipped.queries.ok < QUERIES) problems.push(`${shipped.queries.ok} of ${QUERIES} queries answered`);
  if (shipped.sampleAnswer !== 'SUCCESS') problems.push(`a query for a seeded order was answered ${shipped.sampleAnswer}`);
  let databaseMb = 0;
  for (const suffix of ['', '-wal']) {
    try {
      databaseMb += statSync(file + suffix).size / 2 ** 20;
    } catch {
      // no WAL file left after a clean close
    }
  }
  return { orders, seedSeconds: seeded.seconds, databaseMb, shipped, empty, problems };
}
