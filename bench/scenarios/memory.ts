/**
 * Memory: the resident set of a gateway process whose store holds N orders, after it served
 * signed queries about them, after a forced full GC (the child runs with --expose-gc). The orders
 * are created in bulk through the gateway's domain `createOrder` (lib/gateway-domain.ts), not over
 * HTTP: signing N requests would take minutes.
 *
 * Three processes are measured: the gateway as installed (its compiled dist/ on plain node: the
 * bench server bundled by lib/bundle.ts, `@paybutton/gateway` loaded from its build) on an empty
 * store and on the N orders, and the same server run through tsx on the N orders: the difference
 * is what a TypeScript loader would cost.
 */
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { bundleServer } from '../lib/bundle.ts';
import { gatewayDatabase, type BenchContext } from '../lib/context.ts';
import { queryFields } from '../lib/fixtures.ts';
import { seedOrders } from '../lib/gateway-domain.ts';
import { formatLoad, load, type LoadResult } from '../lib/load.ts';
import { signBodies } from '../lib/sign-pool.ts';
import { startGateway, type PathStats } from './links.ts';

interface Measured {
  readonly rssMb: number;
  readonly heapUsedMb: number;
  readonly gcForced: boolean;
  readonly queries: LoadResult;
  readonly found: number;
}

export interface MemoryResult {
  readonly orders: number;
  readonly seedSeconds: number;
  readonly databaseMb: number;
  /** The gateway as installed (dist, plain node), holding the orders. */
  readonly shipped: Measured;
  /** The same with an empty store. */
  readonly empty: Measured;
  /** The same server through tsx, holding the orders. */
  readonly tsx: Measured;
  readonly problems: string[];
}

const QUERIES = 2_000;
const BUNDLE = new URL('../.build/gateway-server.mjs', import.meta.url).pathname;

async function measure(context: BenchContext, label: string, database: ReturnType<typeof gatewayDatabase>, bodies: string[], script?: string): Promise<Measured> {
  const gateway = await startGateway(
    context,
    label,
    { database, platformPrivateKey: context.keys.platformPrivateKey, merchantPublicKey: context.keys.merchantPublicKey, sandbox: false, worker: true },
    ['--expose-gc'],
    script,
  );
  try {
    const queries = await load({ url: `${gateway.url}/gateway/query`, bodies, durationSeconds: 10, connections: 8 });
    const stats = (await gateway.command<Record<string, PathStats>>({ cmd: 'stats' }))['/gateway/query'];
    const memory = await gateway.command<{ rssMb: number; heapUsedMb: number; gcForced: boolean }>({ cmd: 'gc' });
    context.log(`  memory ${label}: ${formatLoad(queries)} -> RSS ${memory.rssMb.toFixed(1)} MB after GC (heap ${memory.heapUsedMb.toFixed(1)} MB)`);
    return { ...memory, queries, found: stats?.success ?? 0 };
  } finally {
    await gateway.stop();
  }
}

export async function runMemory(context: BenchContext, orders: number): Promise<MemoryResult> {
  const problems: string[] = [];
  const prefix = `M${context.tag}`;
  const orderNums = Array.from({ length: QUERIES }, (_, index) => `${prefix}${String(Math.floor((index * orders) / QUERIES)).padStart(8, '0')}`);
  const bodies = await signBodies(queryFields(orderNums), context.keys.merchantPrivateKey);

  const installed = await bundleServer(new URL('../servers/gateway.ts', import.meta.url).pathname, BUNDLE);
  const empty = await measure(context, 'gateway-empty-store', gatewayDatabase(context, 'sqlite', 'memory_empty'), bodies, installed);
  const database = gatewayDatabase(context, 'sqlite', 'memory');
  const seeded = await seedOrders({
    database,
    platformPrivateKey: context.keys.platformPrivateKey,
    merchantPublicKey: context.keys.merchantPublicKey,
    count: orders,
    orderNumPrefix: prefix,
    notifyUrl: 'https://toko-kopi.co.id/pay/notify',
    method: 'VA_BCA',
    sandbox: false,
  });
  context.log(`  memory: created ${orders} orders in ${seeded.seconds.toFixed(1)} s (domain createOrder, transactions of 1000)`);
  const shipped = await measure(context, 'gateway-installed', database, bodies, installed);
  const tsx = await measure(context, 'gateway-tsx', database, bodies);
  for (const [name, measured] of [['installed', shipped], ['tsx', tsx]] as const) {
    if (measured.found !== QUERIES) problems.push(`${name}: ${measured.found} of ${QUERIES} queries found their order`);
    if (!measured.gcForced) problems.push(`${name}: no GC could be forced (--expose-gc missing)`);
  }
  let databaseMb = 0;
  if (database.kind === 'sqlite') {
    for (const suffix of ['', '-wal']) {
      try {
        databaseMb += statSync(database.file + suffix).size / 2 ** 20;
      } catch {
        // no WAL file left after a clean close
      }
    }
  }
  return { orders, seedSeconds: seeded.seconds, databaseMb, shipped, empty, tsx, problems };
}

export const MEMORY_BUNDLE_DIR = join(new URL('../', import.meta.url).pathname, '.build');
