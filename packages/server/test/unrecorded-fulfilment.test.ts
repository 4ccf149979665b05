/**
 * `onPaid` completes once while the process lives (issue 31): its completion is written under a
 * real database fault (SQLite: another connection holds the write lock past `busy_timeout`;
 * PostgreSQL: another session holds an EXCLUSIVE table lock past `statement_timeout`).
 *
 * - A fault shorter than the lease: the write is tried again while the heartbeat keeps the lease,
 *   and recorded; `onPaid` ran once and never runs again.
 * - A fault outlasting the lease, nobody taking over: still recorded once the database is back,
 *   and this process started no second run meanwhile.
 * - A fault outlasting the lease while another process took the order over: `fulfilment.unrecorded`
 *   and an error log line tell the merchant that `onPaid` runs again.
 *
 * The lock is taken by `onPaid` itself just before it returns, and let go on a state (the
 * plug-in's own warnings and events), never on the clock.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import pg from 'pg';
import { payButton, type PayButtonRouter } from '../src/adapters/express.ts';
import type { DatabaseOption } from '../src/store/database.ts';
import { createStore } from '../src/store/index.ts';
import type { NewOrder } from '../src/store/orders.ts';
import { DATABASE_URL, ENGINES } from './support/engines.ts';
import { waitFor } from './support/harness.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys } from './support/keys.ts';

/** Another connection holding the orders table's write lock. */
interface WriteLock {
  take(): Promise<void>;
  /** Inside the lock: when the order's lease runs out (ms since epoch). */
  leaseUntil(orderNum: string): Promise<number | undefined>;
  /** Inside the lock: another process's run takes the order over, as `claimFulfilment` would. */
  takeOver(orderNum: string): Promise<void>;
  release(): Promise<void>;
  close(): Promise<void>;
}

const TAKE_OVER = 'update tombolbayar_orders set fulfil_attempts = fulfil_attempts + 1, fulfil_lease_until = ? where order_num = ?';
const LEASE_OF = 'select fulfil_lease_until as until from tombolbayar_orders where order_num = ?';

function writeLock(option: DatabaseOption): WriteLock {
  if (option.kind === 'sqlite') {
    const db = new BetterSqlite3(option.file);
    let held = false;
    return {
      async take() {
        db.exec('BEGIN IMMEDIATE');
        held = true;
      },
      async leaseUntil(orderNum) {
        const row = db.prepare(LEASE_OF).get(orderNum) as { until: string | null } | undefined;
        return row?.until ? Date.parse(row.until) : undefined;
      },
      async takeOver(orderNum) {
        db.prepare(TAKE_OVER).run(new Date(Date.now() + 60_000).toISOString(), orderNum);
      },
      async release() {
        if (held) db.exec('COMMIT');
        held = false;
      },
      async close() {
        if (held) db.exec('COMMIT');
        db.close();
      },
    };
  }
  assert.equal(option.kind, 'postgres');
  const schema = (option as { schema: string }).schema;
  const client = new pg.Client({ connectionString: DATABASE_URL });
  const connected = client.connect();
  let held = false;
  return {
    async take() {
      await connected;
      await client.query('BEGIN');
      await client.query(`LOCK TABLE "${schema}".tombolbayar_orders IN EXCLUSIVE MODE`);
      held = true;
    },
    async leaseUntil(orderNum) {
      const result = await client.query<{ until: string | Date | null }>(LEASE_OF.replace('tombolbayar_orders', `"${schema}".tombolbayar_orders`).replace('?', '$1'), [orderNum]);
      const until = result.rows[0]?.until;
      return until ? new Date(until).getTime() : undefined;
    },
    async takeOver(orderNum) {
      await client.query(TAKE_OVER.replace('tombolbayar_orders', `"${schema}".tombolbayar_orders`).replace('?', '$1').replace('?', '$2'), [new Date(Date.now() + 60_000).toISOString(), orderNum]);
    },
    async release() {
      if (held) await client.query('COMMIT');
      held = false;
    },
    async close() {
      await this.release();
      await client.end();
    },
  };
}

function paidOrder(): NewOrder {
  return {
    orderNum: `PBREC${Math.random().toString(36).slice(2, 10).toUpperCase()}`,
    kind: 'va', idempotencyKey: null, requestHash: null, statusToken: 't'.repeat(43), merchantCode: MERCHANT_CODE,
    payMoney: '150000', productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890',
    method: 'VA_BCA', expiryPeriod: 60, item: 'kopi', metadata: null, returnTo: null, reference: null, purchaseKey: null,
  };
}

interface Shop {
  readonly router: PayButtonRouter;
  readonly runs: number[];
  readonly lines: Array<{ level: string; message: string }>;
}

function shop(database: DatabaseOption, fulfilmentLeaseMs: number, lock: WriteLock): Shop {
  const runs: number[] = [];
  const lines: Array<{ level: string; message: string }> = [];
  const log = (level: string) => (_fields: object, message: string) => void lines.push({ level, message });
  const router = payButton({
    logger: { debug: log('debug'), info: log('info'), warn: log('warn'), error: log('error') },
    selfCheck: false,
    // Never called: reconcile() finds only a paid order, whose onPaid it runs.
    gatewayUrl: 'http://127.0.0.1:9',
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: 'http://127.0.0.1:9',
    database,
    fulfilmentLeaseMs,
    quote: () => {
      throw new Error('not used');
    },
    onPaid: async (_order, { attempt }) => {
      runs.push(attempt);
      // The first run's side effect is done; the database stops taking writes as it returns.
      if (attempt === 1) await lock.take();
    },
  });
  return { router, runs, lines };
}

let cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.reverse()) await cleanup().catch(() => {});
  cleanups = [];
});

async function setUp(engine: (typeof ENGINES)[number], leaseMs: number) {
  const fresh = await engine.fresh();
  // PostgreSQL: a statement blocked by the lock fails fast (57014), as it would behind a stuck lock.
  const database: DatabaseOption = fresh.option.kind === 'postgres' ? { ...fresh.option, statementTimeoutMs: 300 } : fresh.option;
  const store = createStore(fresh.option);
  cleanups.push(() => fresh.cleanup(), () => store.close());
  await store.migrate();
  const now = new Date();
  const order = (await store.orders.insertCreating(paidOrder(), now, new Date(now.getTime() + 30_000))).order!;
  assert.ok(await store.orders.transition(order.orderNum, ['creating'], 'paid', { platOrderNum: 'PLATREC1' }, now));
  const lock = writeLock(fresh.option);
  cleanups.push(() => lock.close());
  const s = shop(database, leaseMs, lock);
  cleanups.push(() => s.router.close());
  await s.router.ready();
  return { store, order, lock, ...s };
}

for (const engine of ENGINES) {
  describe(`onPaid's completion under a database fault: ${engine.name}`, () => {
    test('a fault shorter than the lease: the completion is written once the database takes it; onPaid ran once', async () => {
      const { store, order, lock, router, runs } = await setUp(engine, 30_000);
      let failures = 0;
      router.on('warning', (event) => {
        // Two failed writes of the completion: the database is let go only then.
        if (event.code === 'fulfilment_record_failed' && ++failures === 2) void lock.release();
      });
      const unrecorded: number[] = [];
      router.on('fulfilment.unrecorded', (event) => unrecorded.push(event.attempt));
      const succeeded: number[] = [];
      router.on('fulfilment.succeeded', (event) => succeeded.push(event.attempt));

      const report = await router.reconcile();
      assert.equal(report.fulfilled, 1, JSON.stringify(report));
      assert.ok(failures >= 2, `the completion met the fault (${failures} failed writes)`);
      assert.deepEqual(succeeded, [1]);
      assert.deepEqual(unrecorded, []);
      const stored = (await store.orders.get(order.orderNum))!;
      assert.ok(stored.fulfilledAt, 'fulfilled_at written after the fault');
      assert.equal(stored.fulfilAttempts, 1);
      assert.equal((await router.reconcile()).fulfilled, 0, 'never again');
      assert.deepEqual(runs, [1]);
    });

    test('a fault outlasting the lease, nobody taking over: recorded once the database is back; no second run meanwhile', async () => {
      const { store, order, lock, router, runs } = await setUp(engine, 2_000);
      const succeeded: number[] = [];
      router.on('fulfilment.succeeded', (event) => succeeded.push(event.attempt));
      const first = router.reconcile();
      // The database is away past the lease: the stored lease runs out while the write is pending.
      await waitFor(async () => ((await lock.leaseUntil(order.orderNum)) ?? Infinity) < Date.now() - 500, 'the lease ran out during the fault', 60_000);
      // A notification's resend, a poll or the sweep in this process meanwhile: no second run.
      const meanwhile = await router.reconcile();
      assert.equal(meanwhile.fulfilled, 0);
      assert.deepEqual(runs, [1]);
      await lock.release();
      assert.equal((await first).fulfilled, 1, 'recorded once the database took it');
      assert.deepEqual(succeeded, [1]);
      const stored = (await store.orders.get(order.orderNum))!;
      assert.ok(stored.fulfilledAt);
      assert.equal(stored.fulfilAttempts, 1);
      assert.equal((await router.reconcile()).fulfilled, 0, 'never again');
      assert.deepEqual(runs, [1]);
    });

    test('taken over by another process while the fault lasted: fulfilment.unrecorded and an error line tell the merchant', async () => {
      const { store, order, lock, router, runs, lines } = await setUp(engine, 2_000);
      const unrecorded: Array<{ attempt: number; error: unknown }> = [];
      router.on('fulfilment.unrecorded', (event) => unrecorded.push({ attempt: event.attempt, error: event.error }));
      const first = router.reconcile();
      await waitFor(async () => ((await lock.leaseUntil(order.orderNum)) ?? Infinity) < Date.now() - 500, 'the lease ran out during the fault', 60_000);
      await lock.takeOver(order.orderNum);
      await lock.release();
      const report = await first;
      assert.equal(report.fulfilled, 0, JSON.stringify(report));
      assert.equal(unrecorded.length, 1);
      assert.equal(unrecorded[0]!.attempt, 1);
      assert.ok(unrecorded[0]!.error instanceof Error, 'the last failure is passed on');
      assert.ok(
        lines.some((line) => line.level === 'error' && line.message.includes(`onPaid returned for ${order.orderNum} (run 1) but the database would not record it`)),
        JSON.stringify(lines.map((line) => line.message)),
      );
      const stored = (await store.orders.get(order.orderNum))!;
      assert.equal(stored.fulfilledAt, null, 'the run that took over fulfils it');
      assert.equal(stored.fulfilAttempts, 2);
      assert.deepEqual(runs, [1]);
    });
  });
}
