/**
 * `npm run chaos`: a scaled-down chaos run of the whole payment path (issue 25). One gateway and
 * one shop (Express + `payButton()`), each in its own process, take payment links under load
 * while the run:
 *
 * - ends their PostgreSQL connections every 300 ms for 6 s (only backends of its own tag),
 * - makes every database connection they hold silent (half-open, through a proxy it controls),
 * - kills the shop, then the gateway, with SIGKILL and starts them again,
 * - loses every notification of a share of the orders (`--lost-share`, default 0.2: an HTTP
 *   proxy in front of the shop's /notify reads each one and cuts it), so those reach `onPaid`
 *   only through the sweep,
 *
 * while the shop's `onPaid` takes 50-500 ms under a 1 s lease. Then it waits for every order paid
 * at the gateway to reach `onPaid` and prints the exactly-once tally: paid at the gateway,
 * `onPaid` runs, duplicates, missing, and how long the orders whose notifications were lost took
 * from payment to `onPaid`. It fails (exit 1) on a process that exited by itself (a crash), a
 * process that no longer answers (a hang), a duplicate, a loss, or a lost notification's order
 * that took more than 2 minutes. SQLite runs the same without the connection faults.
 *
 *   npm run chaos -- [--engines sqlite,postgres] [--seconds 20 | --payments N] [--rate 20]
 *                    [--gateway-port P] [--shop-port P] [--lost-share 0.2]
 *
 * With `--payments N` the load runs until N payments are made, and the faults fall at fixed
 * shares of them.
 *
 * PostgreSQL: DATABASE_URL, or postgres://postgres@127.0.0.1:5432/test when it answers. Every
 * socket stays on 127.0.0.1.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { generateKeyPair } from '@tombolbayar/protocol/node';
import { backendKiller, startSilentProxy, taggedUrl, type SilentProxy } from '@tombolbayar/test-support/database-chaos';
import pg from 'pg';
import { findPostgres } from '../lib/postgres.ts';
import { freePort } from '@tombolbayar/test-support/network';
import { parseChaosArgs, percentile, type ChaosOptions, type Engine } from './options.ts';
import { answers, Child, droppingProxy } from './processes.ts';

const MERCHANT_CODE = 'CHAOSSHOP01';
/** The bound a lost notification's order must reach `onPaid` within (issue 31). */
const LOST_BOUND_MS = 120_000;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

interface Tally {
  readonly engine: Engine;
  readonly linksCreated: number;
  readonly refused503: number;
  /** Answers that were neither a link nor a 503, by status (a 500 is a fault misread). */
  readonly otherAnswers: Readonly<Record<string, number>>;
  /** Requests that got no answer (a process being killed, or restarting). */
  readonly noAnswer: number;
  readonly paidAtGateway: number;
  readonly onPaidRuns: number;
  readonly duplicates: number;
  readonly missing: number;
  readonly unpaidFulfilled: number;
  readonly notificationsDropped: number;
  /** Paid orders whose every notification was lost, and how long they took to reach onPaid (ms). */
  readonly lostNotificationOrders: number;
  readonly lostToOnPaidMs: { readonly p50: number; readonly p99: number; readonly max: number };
  readonly lostLate: number;
  /** `fulfilment.unrecorded` and `fulfilment.lease_lost` events the shop emitted. */
  readonly unrecorded: number;
  readonly leaseLost: number;
  readonly backendsEnded: number;
  readonly crashes: readonly string[];
  readonly hangs: readonly string[];
}

async function runEngine(engine: Engine, options: ChaosOptions, postgresUrl: string | undefined): Promise<Tally> {
  const { seconds, payments } = options;
  const dir = mkdtempSync(join(tmpdir(), 'tb-chaos-'));
  const onPaidLog = join(dir, 'on-paid.log');
  const eventLog = join(dir, 'events.log');
  writeFileSync(onPaidLog, '');
  writeFileSync(eventLog, '');
  const merchant = generateKeyPair(1024);
  const platform = generateKeyPair(1024);
  const [gatewayPort, shopPort] = [options.gatewayPort ?? (await freePort()), options.shopPort ?? (await freePort())];
  const suffix = randomBytes(4).toString('hex');
  const schemas = { gateway: `chaos_gw_${suffix}`, shop: `chaos_shop_${suffix}` };

  let dbProxy: SilentProxy | undefined;
  let tag: string | undefined;
  let gatewayDatabase: unknown;
  let shopDatabase: unknown;
  if (engine === 'postgres') {
    dbProxy = await startSilentProxy(postgresUrl!);
    const tagged = taggedUrl(dbProxy.url, 'tb25_chaos');
    tag = tagged.tag;
    // Deadlines short enough for a 20 s run; the defaults are for production.
    const deadlines = { connectTimeoutMs: 1_000, statementTimeoutMs: 2_000, queryTimeoutMs: 2_500, idleInTransactionTimeoutMs: 5_000 };
    gatewayDatabase = { kind: 'postgres', url: tagged.url, schema: schemas.gateway, ...deadlines };
    shopDatabase = { kind: 'postgres', url: tagged.url, schema: schemas.shop, maxConnections: 5, ...deadlines };
  } else {
    gatewayDatabase = { kind: 'sqlite', file: join(dir, 'gateway.sqlite') };
    shopDatabase = { kind: 'sqlite', file: join(dir, 'shop.sqlite') };
  }

  const notify = await droppingProxy(shopPort, options.lostShare);
  const gateway = new Child('gateway', 'gateway-server.ts', {
    CHAOS_GATEWAY: JSON.stringify({ port: gatewayPort, database: gatewayDatabase, platformPrivateKey: platform.privateKey, merchantCode: MERCHANT_CODE, merchantPublicKey: merchant.publicKey }),
  });
  const publicUrl = `http://127.0.0.1:${notify.port}`;
  const shop = new Child('shop', 'shop-server.ts', {
    CHAOS_SHOP: JSON.stringify({
      port: shopPort,
      // The gateway reaches the shop (notifyUrl) through the dropping proxy.
      publicUrl,
      gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
      database: shopDatabase,
      merchantCode: MERCHANT_CODE,
      merchantPrivateKey: merchant.privateKey,
      platformPublicKey: platform.publicKey,
      onPaidLog,
      eventLog,
    }),
  });
  const shopUrl = `http://127.0.0.1:${shopPort}`;
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  const hangs: string[] = [];
  const counts = { created: 0, refused: 0, noAnswer: 0, other: {} as Record<string, number> };
  /** Orders paid at the gateway by the load, with when (ms). */
  const paid = new Map<string, number>();
  let backendsEnded = 0;
  try {
    await gateway.start();
    await shop.start();

    // Load: 20 customers, each creating a link with a method and paying it at once, together at
    // most `rate` links a second.
    let loading = true;
    let nextSlot = Date.now();
    const customer = async () => {
      while (loading && (payments === undefined || paid.size < payments)) {
        const slot = Math.max(Date.now(), nextSlot);
        nextSlot = slot + 1000 / options.rate;
        await sleep(slot - Date.now());
        try {
          const response = await fetch(`${shopUrl}/pay/links`, {
            method: 'POST',
            headers: { 'content-type': 'application/json', origin: publicUrl },
            body: JSON.stringify({ item: 'kopi', method: 'VA_BCA', idempotencyKey: randomBytes(12).toString('hex') }),
            signal: AbortSignal.timeout(15_000),
          });
          const body = (await response.json().catch(() => null)) as { orderNum?: string; url?: string } | null;
          if (response.status !== 201 || !body?.url) {
            if (response.status === 503) counts.refused += 1;
            else counts.other[response.status] = (counts.other[response.status] ?? 0) + 1;
            await sleep(100);
            continue;
          }
          counts.created += 1;
          const platOrderNum = new URL(body.url).searchParams.get('orderNum')!;
          const paying = await fetch(`${gatewayUrl}/sandbox/orders/${encodeURIComponent(platOrderNum)}/pay`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: '{}',
            signal: AbortSignal.timeout(15_000),
          });
          await paying.arrayBuffer();
          if (paying.status === 200) paid.set(body.orderNum!, Date.now());
        } catch {
          // A process being killed: the customer tries again (a new order).
          counts.noAnswer += 1;
          await sleep(100);
        }
      }
    };
    const customers = Array.from({ length: 20 }, customer);

    // A share of the run: of its time, or (--payments) of its payments.
    let done = 0;
    const phase = async (fraction: number) => {
      done += fraction;
      if (payments === undefined) return sleep(seconds * 1000 * fraction);
      while (paid.size < payments * done && customersLeft > 0) await sleep(100);
    };
    let customersLeft = 20;
    for (const running of customers) void running.finally(() => (customersLeft -= 1));
    if (engine === 'postgres') {
      const killer = await backendKiller(postgresUrl!, tag!);
      await phase(0.1);
      await killer.run(300, 6_000);
      backendsEnded = killer.terminated;
      await killer.close();
      dbProxy!.silenceHeld();
    }
    await phase(0.2);
    await shop.kill9();
    await shop.start();
    await phase(0.2);
    await gateway.kill9();
    await gateway.start();
    await phase(0.2);
    if (payments === undefined) loading = false;
    await Promise.all(customers);
    loading = false;

    // Hang check: both answer, and serve a new link, by themselves.
    for (const [name, url] of [['gateway', `${gatewayUrl}/readyz`], ['shop', `${shopUrl}/readyz`]] as const) {
      const deadline = Date.now() + 60_000;
      while (!(await answers(url))) {
        if (Date.now() > deadline) {
          hangs.push(`${name} not ready within 60 s after the faults`);
          break;
        }
        await sleep(500);
      }
    }

    // Every order paid at the gateway must reach onPaid (notifications retried, or the sweep).
    const gatewayPaid = async (): Promise<Set<string>> => readPaidAtGateway(engine, postgresUrl, schemas.gateway, join(dir, 'gateway.sqlite'));
    const deadline = Date.now() + LOST_BOUND_MS + 30_000;
    let atGateway = await gatewayPaid();
    for (;;) {
      const fulfilled = new Set(onPaidRuns(onPaidLog).map((run) => run.orderNum));
      if ([...atGateway].every((orderNum) => fulfilled.has(orderNum)) || Date.now() > deadline) break;
      await sleep(500);
      atGateway = await gatewayPaid();
    }
    const runs = onPaidRuns(onPaidLog);
    const perOrder = new Map<string, number>();
    for (const { orderNum } of runs) perOrder.set(orderNum, (perOrder.get(orderNum) ?? 0) + 1);
    const duplicated = runs.filter((run) => (perOrder.get(run.orderNum) ?? 0) > 1);
    // The orders whose notifications were all lost: payment to onPaid (the first run's line).
    const firstRun = new Map<string, number>();
    for (const run of runs) if (!firstRun.has(run.orderNum)) firstRun.set(run.orderNum, run.at);
    const lost = [...notify.lostOrders()].filter((orderNum) => paid.has(orderNum) && atGateway.has(orderNum));
    const lostMs = lost.map((orderNum) => (firstRun.get(orderNum) ?? Number.POSITIVE_INFINITY) - paid.get(orderNum)!).sort((a, b) => a - b);
    const events = readFileSync(eventLog, 'utf8').split('\n').filter(Boolean);
    const missingOrders = [...atGateway].filter((orderNum) => !perOrder.has(orderNum));
    if (missingOrders.length > 0) {
      const rows = await readShopOrders(engine, postgresUrl, schemas.shop, join(dir, 'shop.sqlite'), missingOrders);
      console.log(`paid at the gateway, never through onPaid (the shop's rows):\n${rows.map((row) => `  ${JSON.stringify({ ...row, lost: notify.lostOrders().has(String(row.order_num)) })}`).join('\n')}`);
    }
    if (duplicated.length > 0) console.log(`duplicated onPaid runs (orderNum attempt source pid):\n${duplicated.map((run) => `  ${run.line}`).join('\n')}`);
    return {
      engine,
      linksCreated: counts.created,
      refused503: counts.refused,
      otherAnswers: counts.other,
      noAnswer: counts.noAnswer,
      paidAtGateway: atGateway.size,
      onPaidRuns: runs.length,
      duplicates: [...perOrder.values()].filter((n) => n > 1).length,
      missing: [...atGateway].filter((orderNum) => !perOrder.has(orderNum)).length,
      unpaidFulfilled: [...perOrder.keys()].filter((orderNum) => !atGateway.has(orderNum)).length,
      notificationsDropped: notify.dropped(),
      lostNotificationOrders: lost.length,
      lostToOnPaidMs: { p50: percentile(lostMs, 50), p99: percentile(lostMs, 99), max: lostMs.at(-1) ?? 0 },
      lostLate: lostMs.filter((ms) => ms > LOST_BOUND_MS).length,
      unrecorded: events.filter((line) => line.startsWith('fulfilment.unrecorded ')).length,
      leaseLost: events.filter((line) => line.startsWith('fulfilment.lease_lost ')).length,
      backendsEnded,
      crashes: [...gateway.crashes, ...shop.crashes],
      hangs,
    };
  } finally {
    await shop.stop();
    await gateway.stop();
    await notify.close();
    await dbProxy?.close();
    if (engine === 'postgres') {
      const client = new pg.Client({ connectionString: postgresUrl });
      await client.connect();
      await client.query(`drop schema if exists ${schemas.gateway} cascade`);
      await client.query(`drop schema if exists ${schemas.shop} cascade`);
      await client.end();
    }
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The `onPaid` runs the shop logged: `orderNum attempt source pid time` per line. */
function onPaidRuns(file: string): Array<{ orderNum: string; at: number; line: string }> {
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => ({ orderNum: line.split(' ')[0]!, at: Number(line.split(' ')[4]), line }));
}

/** The shop's rows of `orderNums`, for the report of a loss. */
async function readShopOrders(engine: Engine, postgresUrl: string | undefined, schema: string, sqliteFile: string, orderNums: readonly string[]): Promise<Array<Record<string, unknown>>> {
  const columns = 'order_num, status, method, plat_order_num, created_at, checked_at, paid_at, fulfilled_at, fulfil_attempts, fulfil_lease_until, fulfil_error';
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      return (await client.query(`select ${columns} from tombolbayar_orders where order_num = any($1)`, [orderNums])).rows;
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(sqliteFile, { readonly: true });
  try {
    return db.prepare(`select ${columns} from tombolbayar_orders where order_num in (${orderNums.map(() => '?').join(',')})`).all(...orderNums) as Array<Record<string, unknown>>;
  } finally {
    db.close();
  }
}

/** The merchant's orders the gateway holds as PAID. */
async function readPaidAtGateway(engine: Engine, postgresUrl: string | undefined, schema: string, sqliteFile: string): Promise<Set<string>> {
  const text = `select order_num from orders where merchant_code = '${MERCHANT_CODE}' and status = 'PAID'`;
  if (engine === 'postgres') {
    const client = new pg.Client({ connectionString: postgresUrl, options: `-c search_path=${schema}` });
    await client.connect();
    try {
      return new Set((await client.query<{ order_num: string }>(text)).rows.map((row) => row.order_num));
    } finally {
      await client.end();
    }
  }
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(sqliteFile, { readonly: true });
  try {
    return new Set((db.prepare(text).all() as Array<{ order_num: string }>).map((row) => row.order_num));
  } finally {
    db.close();
  }
}

const options = parseChaosArgs(process.argv.slice(2));
const postgresUrl = await findPostgres();
const engines = options.engines ?? (postgresUrl ? ['sqlite', 'postgres'] : ['sqlite']);
let failed = false;
for (const engine of engines) {
  if (engine === 'postgres' && !postgresUrl) throw new Error('PostgreSQL does not answer: set DATABASE_URL');
  const tally = await runEngine(engine, options, postgresUrl);
  console.log(`\nchaos (${engine}): ${JSON.stringify(tally, null, 2)}`);
  const problems = [
    ...tally.crashes,
    ...tally.hangs,
    ...(tally.duplicates > 0 ? [`${tally.duplicates} orders fulfilled twice`] : []),
    ...(tally.missing > 0 ? [`${tally.missing} paid orders never reached onPaid`] : []),
    ...(tally.unpaidFulfilled > 0 ? [`${tally.unpaidFulfilled} orders fulfilled without being paid`] : []),
    ...(tally.lostLate > 0 ? [`${tally.lostLate} orders whose notifications were lost reached onPaid after ${LOST_BOUND_MS / 1000} s`] : []),
    ...(tally.paidAtGateway === 0 ? ['no order was paid: the run proved nothing'] : []),
  ];
  console.log(
    `  paid at the gateway ${tally.paidAtGateway}, onPaid runs ${tally.onPaidRuns}, duplicates ${tally.duplicates}, missing ${tally.missing}` +
      `, lost notifications ${tally.notificationsDropped} (${tally.lostNotificationOrders} orders, to onPaid p50 ${tally.lostToOnPaidMs.p50} ms, p99 ${tally.lostToOnPaidMs.p99} ms, max ${tally.lostToOnPaidMs.max} ms)` +
      ` -> ${problems.length === 0 ? 'PASS' : `FAIL: ${problems.join('; ')}`}`,
  );
  if (problems.length > 0) failed = true;
}
process.exit(failed ? 1 : 0);
