/**
 * One contract for the order store, run on SQLite and (with DATABASE_URL) PostgreSQL: what the
 * router relies on is that every state change is a compare-and-set that exactly one writer wins.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, beforeEach, describe, test } from 'node:test';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { ensureSchema, openDatabase } from '../src/store/database.ts';
import { createStore, type Store } from '../src/store/index.ts';
import { migrateToLatest } from '../src/store/migrations.ts';
import { OrderStore, type NewOrder } from '../src/store/orders.ts';
import { DATABASE_URL, dropSchema, ENGINES, newSchemaName } from './support/engines.ts';
import { MERCHANT_CODE } from './support/keys.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';

let sequence = 0;
function newOrder(overrides: Partial<NewOrder> = {}): NewOrder {
  sequence += 1;
  return {
    orderNum: `PBTEST${String(sequence).padStart(6, '0')}${Math.random().toString(36).slice(2, 8).toUpperCase()}`,
    kind: 'link',
    idempotencyKey: `key-${sequence}-${Math.random().toString(36).slice(2)}`,
    requestHash: 'a'.repeat(64),
    statusToken: 't'.repeat(43),
    merchantCode: 'MERCH-TEST-01',
    payMoney: '150000',
    productDetail: 'Kopi Gayo 250g',
    name: 'Budi Santoso',
    email: 'budi@example.com',
    phone: '081234567890',
    method: null,
    expiryPeriod: 60,
    item: 'kopi',
    metadata: { cart: 42, lines: ['a', 'b'] },
    returnTo: 'https://shop.example/checkout',
    reference: null,
    purchaseKey: null,
    ...overrides,
  };
}

/** What a QRIS order's "vaNumber" really is: a whole EMVCo payload, far over 64 characters. */
// As the gateway builds it for Toko Kopi Gayo Sejahtera, 150000 rupiah (CRC-checked there).
const QRIS_PAYLOAD =
  '00020101021226710021ID.CO.TOMBOLBAYAR.WWW01189360099905678901230213MERCH-TEST-010303UMI51440014ID.CO.QRIS.WWW0215ID12345678901230303UMI' +
  '52045999530336054061500005802ID5924Toko Kopi Gayo Sejahtera6015JAKARTA SELATAN62440125PLAT20260301ABCDEFGHJKLMN0711TOMBOLBAYAR6304E6B6';
/** A server-side key as stored: "server:" + 128 characters. */
const LONGEST_SERVER_KEY = `server:${'k'.repeat(128)}`;
const LONG_RETURN_TO = `https://shop.example/checkout?${'q'.repeat(2048 - 'https://shop.example/checkout?'.length)}`;

const at = (iso: string) => new Date(iso);
const T0 = at('2026-03-01T10:00:00.000Z');
const later = (ms: number) => new Date(T0.getTime() + ms);

for (const engine of ENGINES) {
  describe(`order store contract: ${engine.name}`, () => {
    let store: Store;
    let cleanup: () => Promise<void>;
    let option: Parameters<typeof createStore>[0];
    beforeEach(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      option = fresh.option;
      store = createStore(fresh.option);
      await store.migrate();
    });
    afterEach(async () => {
      await store.close();
      await cleanup();
    });

    test('migrating again, and from a second process-like store at once, is harmless', async () => {
      const second = createStore(option);
      const third = createStore(option);
      await Promise.all([store.migrate(), second.migrate(), third.migrate()]);
      const { inserted } = await second.orders.insertCreating(newOrder(), T0, later(1));
      assert.ok(inserted);
      await second.close();
      await third.close();
    });

    test('an inserted order reads back field for field', async () => {
      const order = newOrder();
      const { inserted, order: stored } = await store.orders.insertCreating(order, T0, later(30_000));
      assert.equal(inserted, true);
      assert.equal(stored.status, 'creating');
      assert.equal(stored.payMoney, '150000');
      assert.equal(stored.expiryPeriod, 60);
      assert.deepEqual(stored.metadata, { cart: 42, lines: ['a', 'b'] });
      assert.deepEqual(stored.createdAt, T0);
      assert.deepEqual(stored.createLeaseUntil, later(30_000));
      assert.equal(stored.fulfilAttempts, 0);
      assert.equal(stored.fulfilledAt, null);
      assert.equal(await store.orders.get('NOPE'), undefined);
    });

    test('one idempotency key holds one order, even when inserted concurrently', async () => {
      const key = 'double-click-key-0001';
      const attempts = await Promise.all(Array.from({ length: 6 }, () => store.orders.insertCreating(newOrder({ idempotencyKey: key }), T0, later(30_000))));
      const winners = attempts.filter((attempt) => attempt.inserted);
      assert.equal(winners.length, 1);
      for (const attempt of attempts) assert.equal(attempt.order?.orderNum, winners[0]!.order.orderNum);
      assert.equal((await store.orders.getByIdempotencyKey(key))!.orderNum, winners[0]!.order.orderNum);
    });

    test('orders without a key never collide', async () => {
      const a = await store.orders.insertCreating(newOrder({ idempotencyKey: null }), T0, later(1));
      const b = await store.orders.insertCreating(newOrder({ idempotencyKey: null }), T0, later(1));
      assert.ok(a.inserted && b.inserted);
    });

    test('creating -> pending once, with the gateway facts', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      const facts = { platOrderNum: 'PLAT1', url: 'https://gw.example/pay?orderNum=PLAT1', expiresAt: later(3_600_000) };
      const written = await store.orders.markCreated(order.orderNum, facts, later(10));
      assert.equal(await store.orders.markCreated(order.orderNum, facts, later(20)), undefined);
      const pending = (await store.orders.get(order.orderNum))!;
      assert.deepEqual(written, pending, 'the write returns the row it wrote');
      assert.equal(pending.status, 'pending');
      assert.equal(pending.platOrderNum, 'PLAT1');
      assert.equal(pending.url, facts.url);
      assert.equal(pending.createLeaseUntil, null);
      assert.deepEqual(pending.expiresAt, later(3_600_000));
    });

    test('a failed creation keeps its reason and leaves creating for good', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      assert.equal(await store.orders.markCreateFailed(order.orderNum, later(1), { code: 'gateway_refused', message: 'payMoney: too small', gatewayCode: 'FAIL' }), true);
      const failed = (await store.orders.get(order.orderNum))!;
      assert.deepEqual([failed.status, failed.errorCode, failed.errorMessage, failed.gatewayCode], ['failed', 'gateway_refused', 'payMoney: too small', 'FAIL']);
      assert.equal(await store.orders.markCreated(order.orderNum, { platOrderNum: 'X' }, later(2)), undefined);
    });

    test('the create lease: held, released, taken over only once expired', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      assert.equal(await store.orders.claimCreateLease(order.orderNum, later(1_000), later(40_000)), false, 'still held');
      assert.equal(await store.orders.claimCreateLease(order.orderNum, later(31_000), later(60_000)), true, 'expired lease');
      await store.orders.releaseCreateLease(order.orderNum, later(32_000), { code: 'gateway_unavailable', message: 'down' });
      const released = (await store.orders.get(order.orderNum))!;
      assert.equal(released.createLeaseUntil, null);
      assert.equal(released.errorCode, 'gateway_unavailable');
      const claims = await Promise.all(Array.from({ length: 5 }, () => store.orders.claimCreateLease(order.orderNum, later(33_000), later(90_000))));
      assert.equal(claims.filter(Boolean).length, 1, 'one concurrent claimer wins');
    });

    test('pending -> paid is won by exactly one of many concurrent writers', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.markCreated(order.orderNum, { platOrderNum: 'PLAT2' }, later(1));
      const results = await Promise.all(Array.from({ length: 8 }, (_, index) => store.orders.transition(order.orderNum, ['creating', 'pending', 'expired', 'failed'], 'paid', { vaNumber: `VA${index}` }, later(100 + index))));
      const won = results.filter((result) => result !== undefined);
      assert.deepEqual(won.map((result) => result.left), ['pending']);
      const paid = (await store.orders.get(order.orderNum))!;
      assert.deepEqual(won[0]!.order, paid, 'the winner gets the row it wrote');
      assert.equal(paid.status, 'paid');
      assert.ok(paid.paidAt);
    });

    test('paid is final; a payment still wins over an expiry', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.markCreated(order.orderNum, { platOrderNum: 'PLAT3' }, later(1));
      assert.equal((await store.orders.transition(order.orderNum, ['creating', 'pending'], 'expired', {}, later(2)))?.left, 'pending');
      assert.equal(await store.orders.transition(order.orderNum, ['creating', 'pending'], 'failed', {}, later(3)), undefined, 'expired does not become failed');
      assert.equal((await store.orders.transition(order.orderNum, ['creating', 'pending', 'expired', 'failed'], 'paid', { method: 'VA_BCA' }, later(4)))?.left, 'expired');
      assert.equal(await store.orders.transition(order.orderNum, ['creating', 'pending'], 'expired', {}, later(5)), undefined);
      const paid = (await store.orders.get(order.orderNum))!;
      assert.deepEqual([paid.status, paid.method], ['paid', 'VA_BCA']);
    });

    test('a known value is never overwritten with an absent one', async () => {
      const order = (await store.orders.insertCreating(newOrder({ method: 'VA_BNI' }), T0, later(30_000))).order!;
      await store.orders.markCreated(order.orderNum, { platOrderNum: 'PLAT4', vaNumber: '123' }, later(1));
      await store.orders.transition(order.orderNum, ['pending'], 'paid', { platOrderNum: undefined, vaNumber: undefined }, later(2));
      const paid = (await store.orders.get(order.orderNum))!;
      assert.deepEqual([paid.platOrderNum, paid.vaNumber, paid.method], ['PLAT4', '123', 'VA_BNI']);
    });

    test('fulfilment: one run at a time, attempts counted, done once', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(1), later(60_000)), undefined, 'not paid yet');
      await store.orders.transition(order.orderNum, ['creating'], 'paid', {}, later(2));
      const claims = await Promise.all(Array.from({ length: 5 }, () => store.orders.claimFulfilment(order.orderNum, later(3), later(60_000))));
      assert.deepEqual(claims.filter((claim) => claim !== undefined).map((claim) => [claim.attempt, claim.order.fulfilAttempts]), [[1, 1]]);
      await store.orders.failFulfilment(order.orderNum, 1, later(4), 'Error: backend down');
      assert.equal((await store.orders.get(order.orderNum))!.fulfilError, 'Error: backend down');
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(5), later(60_000)))?.attempt, 2);
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 2, later(6)), true);
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(7), later(60_000)), undefined, 'fulfilled: never again');
      const done = (await store.orders.get(order.orderNum))!;
      assert.deepEqual(done.fulfilledAt, later(6));
      assert.equal(done.fulfilAttempts, 2);
    });

    test('a fulfilment lease that runs out (crashed process) can be taken over', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.transition(order.orderNum, ['creating'], 'paid', {}, later(1));
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(2), later(10_000)))?.attempt, 1);
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(5_000), later(20_000)), undefined);
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(10_001), later(20_000)))?.attempt, 2);
    });

    test('an old run that lost its lease and then fails does not release the newer run\'s lease', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.transition(order.orderNum, ['creating'], 'paid', {}, later(1));
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(2), later(10_000)))?.attempt, 1);
      // Run 1 outlives its lease; run 2 takes over.
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(10_001), later(30_000)))?.attempt, 2);
      // Run 1's onPaid now throws: its failure must not free run 2's lease.
      await store.orders.failFulfilment(order.orderNum, 1, later(10_002), 'Error: late failure of run 1');
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(10_003), later(40_000)), undefined, 'run 2 still holds the lease: no third run');
      const held = (await store.orders.get(order.orderNum))!;
      assert.equal(held.fulfilError, null, 'run 1\'s failure is not recorded over run 2');
      await store.orders.failFulfilment(order.orderNum, 2, later(10_004), 'Error: run 2 failed');
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(10_005), later(50_000)))?.attempt, 3, 'run 2 released its own lease');
    });

    test('the move to paid can take the first fulfilment lease: one winner, fenced like a claim, taken over once it runs out', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      const moves = await Promise.all(Array.from({ length: 4 }, (_, index) =>
        store.orders.transition(order.orderNum, ['creating', 'pending', 'expired', 'failed'], 'paid', {}, later(1 + index), later(10_000))));
      const won = moves.filter((move) => move !== undefined);
      assert.deepEqual(won.map((move) => [move.attempt, move.order.fulfilAttempts, move.order.status]), [[1, 1, 'paid']]);
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(5_000), later(20_000)), undefined, 'the move\'s lease is held');
      assert.equal(await store.orders.renewFulfilment(order.orderNum, 1, later(6_000), later(16_000)), true, 'renewed like any run\'s');
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(16_001), later(30_000)).then((claim) => claim?.attempt), 2, 'run out: taken over');
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 1, later(16_002)), false, 'the first run lost it: its completion is not recorded');
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 2, later(16_003)), true);
      const expired = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      const toExpired = await store.orders.transition(expired.orderNum, ['creating'], 'expired', {}, later(1), later(10_000));
      assert.deepEqual([toExpired?.attempt, toExpired?.order.fulfilAttempts], [undefined, 0], 'only a move to paid takes a lease');
    });

    test('values whose length we do not control fit: a QRIS payload, the longest server key, a 2048-character returnTo', async () => {
      assert.ok(QRIS_PAYLOAD.length > 64, `the payload is ${QRIS_PAYLOAD.length} characters`);
      const { inserted, order } = await store.orders.insertCreating(newOrder({ idempotencyKey: LONGEST_SERVER_KEY, returnTo: LONG_RETURN_TO, method: 'QRIS' }), T0, later(30_000));
      assert.ok(inserted);
      assert.equal((await store.orders.markCreated(order.orderNum, { platOrderNum: 'PLATQR1', vaNumber: QRIS_PAYLOAD }, later(1)))?.vaNumber, QRIS_PAYLOAD);
      assert.equal((await store.orders.transition(order.orderNum, ['pending'], 'paid', { vaNumber: QRIS_PAYLOAD, method: 'QRIS' }, later(2)))?.left, 'pending');
      const paid = (await store.orders.getByIdempotencyKey(LONGEST_SERVER_KEY))!;
      assert.deepEqual([paid.orderNum, paid.status, paid.vaNumber, paid.returnTo], [order.orderNum, 'paid', QRIS_PAYLOAD, LONG_RETURN_TO]);
      await store.orders.updateReturnTo(order.orderNum, `${LONG_RETURN_TO.slice(0, -1)}r`, later(3));
      assert.equal((await store.orders.get(order.orderNum))!.returnTo!.at(-1), 'r');
    });

    test('a database made by the first release (as paybutton_*) is upgraded in place, its orders kept and its tables renamed', async () => {
      const fresh = await engine.fresh();
      const open = openDatabase(fresh.option);
      const warnings: Error[] = [];
      const onWarning = (warning: Error) => warnings.push(warning);
      process.on('warning', onWarning);
      try {
        await ensureSchema(open);
        await migrateToLatest(open.db as never, open.schema, open.engine, '2026_01_001_orders');
        // The first release's migrator kept its history under the earlier names too.
        await open.db.schema.alterTable('tombolbayar_migration').renameTo('paybutton_migration').execute();
        await open.db.schema.alterTable('tombolbayar_migration_lock').renameTo('paybutton_migration_lock').execute();
        // Written as the first release wrote it: only its columns, in its table.
        const order = newOrder();
        await (open.db as unknown as Kysely<any>).insertInto('paybutton_orders').values({
          order_num: order.orderNum, kind: order.kind, status: 'creating', idempotency_key: order.idempotencyKey, request_hash: order.requestHash,
          status_token: order.statusToken, merchant_code: order.merchantCode, pay_money: order.payMoney, product_detail: order.productDetail,
          customer_name: order.name, email: order.email, phone: order.phone, method: order.method, expiry_period: order.expiryPeriod, item: order.item,
          metadata: JSON.stringify(order.metadata), return_to: order.returnTo, created_at: T0.toISOString(), updated_at: T0.toISOString(),
          create_lease_until: later(30_000).toISOString(), fulfil_attempts: 0,
        }).execute();
        if (engine.name === 'postgres') {
          const tooLong = (open.db as unknown as Kysely<any>).updateTable('paybutton_orders').set({ va_number: QRIS_PAYLOAD }).where('order_num', '=', order.orderNum).execute();
          await assert.rejects(tooLong, /too long/, 'the first release could not hold it');
        }
        const upgraded = createStore(fresh.option);
        await upgraded.migrate();
        assert.ok(warnings.some((warning) => (warning as Error & { code?: string }).code === 'TOMBOLBAYAR_RENAMED_TABLES' && /paybutton_migration/.test(warning.message)), 'the rename is said');
        const tables = (await open.db.introspection.getTables({ withInternalKyselyTables: true }))
          .filter((table) => engine.name === 'sqlite' || table.schema === (open.schema ?? 'public')).map((table) => table.name);
        assert.deepEqual(tables.filter((name) => /^(paybutton|tombolbayar)_/.test(name)).sort(), ['tombolbayar_first_paid', 'tombolbayar_leases', 'tombolbayar_migration', 'tombolbayar_migration_lock', 'tombolbayar_orders']);
        assert.equal((await upgraded.orders.markCreated(order.orderNum, { platOrderNum: 'PLATUP', vaNumber: QRIS_PAYLOAD }, later(1)))?.status, 'pending');
        assert.equal((await upgraded.orders.transition(order.orderNum, ['pending'], 'paid', {}, later(2)))?.left, 'pending');
        const kept = (await upgraded.orders.get(order.orderNum))!;
        assert.deepEqual([kept.status, kept.vaNumber, kept.payMoney, kept.metadata, kept.reference], ['paid', QRIS_PAYLOAD, '150000', { cart: 42, lines: ['a', 'b'] }, null]);
        await upgraded.close();
        // A second start finds nothing to rename, and says nothing.
        const before = warnings.length;
        const again = createStore(fresh.option);
        await again.migrate();
        await again.close();
        assert.equal(warnings.length, before);
      } finally {
        process.off('warning', onWarning);
        await open.close();
        await fresh.cleanup();
      }
    });

    test('a paid order whose claim was never written (its process ended in between) still pays its purchase: the next read claims it', async () => {
      const reference = `cart-${Math.random().toString(36).slice(2)}`;
      const paid = (await store.orders.insertCreating(newOrder({ reference }), T0, later(30_000))).order!;
      const open = (await store.orders.insertCreating(newOrder({ kind: 'va', method: 'VA_BCA', reference }), T0, later(30_000))).order!;
      await store.orders.transition(paid.orderNum, ['creating'], 'paid', { paidAt: later(10) }, later(10));
      const raw = openDatabase(option);
      try {
        await (raw.db as unknown as Kysely<any>).deleteFrom('tombolbayar_first_paid').where('reference', '=', reference).execute();
      } finally {
        await raw.close();
      }
      assert.equal(await store.orders.paidInstead(open), paid.orderNum, 'the open order is paid instead');
      assert.equal((await store.orders.paidOfReference(reference, '150000'))?.orderNum, paid.orderNum);
      // Paid anyway: the duplicate, since the first was claimed for the one paid first.
      await store.orders.transition(open.orderNum, ['creating'], 'paid', { paidAt: later(20) }, later(20));
      assert.equal(await store.orders.duplicateOf((await store.orders.get(open.orderNum))!), paid.orderNum);
      assert.equal(await store.orders.duplicateOf((await store.orders.get(paid.orderNum))!), null);
    });

    test('purchases paid before first payments were claimed are claimed, when upgraded, for their first paid order by the gateway\'s time', async () => {
      const fresh = await engine.fresh();
      const open = openDatabase(fresh.option);
      try {
        await ensureSchema(open);
        await migrateToLatest(open.db as never, open.schema, open.engine, '2026_11_005_tombolbayar_names');
        const reference = 'cart-paid-twice-before';
        for (const [suffix, paidAt] of [['LATE', '2026-01-31T12:05:00.000Z'], ['FIRST', '2026-01-31T12:01:00.000Z']] as const) {
          const order = newOrder({ orderNum: `PBOLD${suffix}`, reference });
          await (open.db as unknown as Kysely<any>).insertInto('tombolbayar_orders').values({
            order_num: order.orderNum, kind: order.kind, status: 'paid', idempotency_key: order.idempotencyKey, request_hash: order.requestHash,
            status_token: order.statusToken, merchant_code: order.merchantCode, pay_money: order.payMoney, product_detail: order.productDetail,
            customer_name: order.name, email: order.email, phone: order.phone, method: order.method, expiry_period: order.expiryPeriod, item: order.item,
            metadata: null, return_to: null, reference, created_at: T0.toISOString(), updated_at: T0.toISOString(), paid_at: paidAt, fulfil_attempts: 1,
          }).execute();
        }
        const upgraded = createStore(fresh.option);
        await upgraded.migrate();
        assert.equal(await upgraded.orders.duplicateOf((await upgraded.orders.get('PBOLDLATE'))!), 'PBOLDFIRST');
        assert.equal(await upgraded.orders.duplicateOf((await upgraded.orders.get('PBOLDFIRST'))!), null);
        await upgraded.close();
      } finally {
        await open.close();
        await fresh.cleanup();
      }
    });

    test('two processes opening one new store at once both migrate it (the CREATE SCHEMA race is survived)', { skip: engine.name === 'postgres' ? false : 'PostgreSQL only: a new SQLite file has no schema to race on (a start that finds it locked is tried again by the next request)' }, async () => {
      const fresh = await engine.fresh();
      const stores = [createStore(fresh.option), createStore(fresh.option), createStore(fresh.option)];
      try {
        await Promise.all(stores.map((store) => store.migrate()));
        for (const store of stores) await store.ping();
        const order = (await stores[0]!.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
        assert.equal((await stores[2]!.orders.get(order.orderNum))?.orderNum, order.orderNum);
      } finally {
        for (const store of stores) await store.close();
        await fresh.cleanup();
      }
    });

    test('completion is fenced: a run that was taken over records nothing', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.transition(order.orderNum, ['creating'], 'paid', {}, later(1));
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(2), later(1_000)))?.attempt, 1);
      assert.equal(await store.orders.renewFulfilment(order.orderNum, 1, later(500), later(1_500)), true, 'a live lease renews');
      assert.equal(await store.orders.renewFulfilment(order.orderNum, 1, later(1_600), later(2_600)), false, 'a run that wakes past its lease cannot revive it');
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(1_800), later(5_000)))?.attempt, 2);
      assert.equal(await store.orders.renewFulfilment(order.orderNum, 1, later(1_900), later(2_900)), false);
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 1, later(1_900)), false, 'the stalled run records nothing');
      assert.equal((await store.orders.get(order.orderNum))!.fulfilledAt, null);
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 2, later(2_000)), true, 'the run holding the lease does');
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 2, later(2_001)), false, 'once');
      assert.deepEqual((await store.orders.get(order.orderNum))!.fulfilledAt, later(2_000));
    });

    test('a run whose lease ran out while nobody took over still records its completion (its onPaid returned)', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      await store.orders.transition(order.orderNum, ['creating'], 'paid', {}, later(1));
      assert.equal((await store.orders.claimFulfilment(order.orderNum, later(2), later(1_000)))?.attempt, 1);
      assert.equal(await store.orders.renewFulfilment(order.orderNum, 1, later(5_000), later(6_000)), false, 'the lease ran out (a database outage)');
      assert.equal(await store.orders.completeFulfilment(order.orderNum, 1, later(5_001)), true, 'nobody ran since: the completion counts');
      assert.equal(await store.orders.claimFulfilment(order.orderNum, later(5_002), later(9_000)), undefined, 'and no second run starts');
      assert.deepEqual((await store.orders.get(order.orderNum))!.fulfilledAt, later(5_001));
    });

    test('one payable order per purchase key, even when inserted concurrently; a paid one frees the key and pays the reference', async () => {
      const reference = `cart-${Math.random().toString(36).slice(2)}`;
      const purchaseKey = `link|-|150000|${reference}`;
      const attempts = await Promise.all(Array.from({ length: 6 }, () => store.orders.insertCreating(newOrder({ reference, purchaseKey }), T0, later(30_000))));
      const winners = attempts.filter((attempt) => attempt.inserted);
      assert.equal(winners.length, 1);
      const first = winners[0]!.order!;
      for (const attempt of attempts) assert.equal(attempt.order?.orderNum, first.orderNum, 'the losers are given the payable order');
      assert.equal((await store.orders.payableByPurchase(purchaseKey))!.orderNum, first.orderNum);
      assert.equal(await store.orders.paidOfReference(reference, '150000'), undefined);
      // A number for the same cart (another kind and method): another payable order of the reference.
      const number = (await store.orders.insertCreating(newOrder({ kind: 'va', method: 'VA_BCA', reference, purchaseKey: `va|VA_BCA|150000|${reference}` }), T0, later(30_000))).order!;

      await store.orders.transition(first.orderNum, ['creating'], 'paid', { paidAt: later(10) }, later(10));
      assert.equal(await store.orders.payableByPurchase(purchaseKey), undefined);
      assert.equal((await store.orders.paidOfReference(reference, '150000'))!.orderNum, first.orderNum, 'the reference is paid, for its amount');
      assert.equal(await store.orders.paidOfReference(reference, '300000'), undefined, 'another amount is another purchase');
      assert.equal(await store.orders.paidInstead(number), first.orderNum, 'the number is paid instead by the link');
      assert.equal(await store.orders.paidInstead(first), null);
      assert.equal(await store.orders.paidInstead({ orderNum: number.orderNum, reference: null, payMoney: '150000' }), null, 'no reference, no purchase to pay');
      assert.equal(await store.orders.paidInstead({ ...number, payMoney: '300000' }), null, 'another amount of the same reference is another purchase (the cart changed)');
      const second = await store.orders.insertCreating(newOrder({ reference, purchaseKey }), later(20), later(30_000));
      assert.ok(second.inserted, 'a paid purchase no longer blocks a new order (the router answers with the paid one before inserting)');
      await store.orders.transition(second.order.orderNum, ['creating'], 'paid', { paidAt: later(30) }, later(30));
      assert.equal(await store.orders.duplicateOf((await store.orders.get(second.order.orderNum))!), first.orderNum, "the second paid order names the first");
      assert.equal(await store.orders.duplicateOf((await store.orders.get(first.orderNum))!), null, 'the first paid is not a duplicate');
      assert.equal((await store.orders.get(first.orderNum))!.reference, reference);
    });

    test('of two paid orders of one purchase, the duplicate is the one found paid second, whatever the gateway\'s paid times say, and exactly one when both are found paid at once', async () => {
      const reference = `cart-${Math.random().toString(36).slice(2)}`;
      // The number was made first, the link second; the link is found paid first, in the same gateway second.
      const number = (await store.orders.insertCreating(newOrder({ kind: 'va', method: 'VA_BCA', reference }), T0, later(30_000))).order!;
      const link = (await store.orders.insertCreating(newOrder({ reference }), later(5), later(30_000))).order!;
      const sameSecond = new Date('2026-01-31T12:00:07.000Z');
      await store.orders.transition(link.orderNum, ['creating'], 'paid', { paidAt: sameSecond }, later(10));
      await store.orders.transition(number.orderNum, ['creating'], 'paid', { paidAt: sameSecond }, later(20));
      assert.equal(await store.orders.duplicateOf((await store.orders.get(number.orderNum))!), link.orderNum, 'the one found paid second');
      assert.equal(await store.orders.duplicateOf((await store.orders.get(link.orderNum))!), null);

      // A notification lost for an order the gateway says was paid earlier: found paid last, it is the duplicate
      // (the other's onPaid already ran as the purchase's only payment).
      const late = (await store.orders.insertCreating(newOrder({ reference: `${reference}-2` }), T0, later(30_000))).order!;
      const prompt = (await store.orders.insertCreating(newOrder({ reference: `${reference}-2` }), T0, later(30_000))).order!;
      await store.orders.transition(prompt.orderNum, ['creating'], 'paid', { paidAt: new Date('2026-01-31T12:05:00.000Z') }, later(40));
      await store.orders.transition(late.orderNum, ['creating'], 'paid', { paidAt: new Date('2026-01-31T12:01:00.000Z') }, later(50));
      assert.equal(await store.orders.duplicateOf((await store.orders.get(late.orderNum))!), prompt.orderNum);
      assert.equal(await store.orders.duplicateOf((await store.orders.get(prompt.orderNum))!), null);

      // Six orders of one purchase found paid at once (on PostgreSQL, concurrently): exactly one is first.
      const racing = await Promise.all(Array.from({ length: 6 }, async () => (await store.orders.insertCreating(newOrder({ reference: `${reference}-3` }), T0, later(30_000))).order!));
      await Promise.all(racing.map((order) => store.orders.transition(order.orderNum, ['creating'], 'paid', { paidAt: sameSecond }, later(60))));
      const duplicates = await Promise.all(racing.map(async (order) => store.orders.duplicateOf((await store.orders.get(order.orderNum))!)));
      const firsts = racing.filter((_, index) => duplicates[index] === null);
      assert.equal(firsts.length, 1, 'exactly one is the purchase\'s payment');
      assert.deepEqual(new Set(duplicates.filter((value) => value !== null)), new Set([firsts[0]!.orderNum]), 'every other is its duplicate');
    });

    test('metadata that no longer reads back is served as null, and said', async () => {
      const told: Array<[string, string, unknown]> = [];
      const fresh = await engine.fresh();
      const reporting = createStore(fresh.option, (orderNum, column, error) => void told.push([orderNum, column, error]));
      try {
        await reporting.migrate();
        const order = (await reporting.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
        await reporting.orders.db.updateTable('tombolbayar_orders').set({ metadata: '{"cart": 4' }).where('order_num', '=', order.orderNum).execute();
        assert.equal((await reporting.orders.get(order.orderNum))!.metadata, null);
        assert.equal(told.length, 1);
        assert.deepEqual([told[0]![0], told[0]![1]], [order.orderNum, 'metadata']);
        assert.ok(told[0]![2] instanceof SyntaxError, 'the cause is the parse error');
      } finally {
        await reporting.close();
        await fresh.cleanup();
      }
    });

    test('status checks are throttled per order', async () => {
      const order = (await store.orders.insertCreating(newOrder(), T0, later(30_000))).order!;
      assert.equal(await store.orders.claimCheck(order.orderNum, later(0), later(-10_000)), true);
      assert.equal(await store.orders.claimCheck(order.orderNum, later(5_000), later(-5_000)), false);
      assert.equal(await store.orders.claimCheck(order.orderNum, later(10_001), later(1)), true);
    });

    test('reconcile lists: pending past expiry, stuck creations, unfulfilled payments', async () => {
      const pendingOld = (await store.orders.insertCreating(newOrder(), T0, later(1))).order!;
      await store.orders.markCreated(pendingOld.orderNum, { platOrderNum: 'P1', expiresAt: later(60_000) }, later(1));
      const pendingNew = (await store.orders.insertCreating(newOrder(), T0, later(1))).order!;
      await store.orders.markCreated(pendingNew.orderNum, { platOrderNum: 'P2', expiresAt: later(600_000) }, later(1));
      const stuck = (await store.orders.insertCreating(newOrder(), T0, later(1_000))).order!;
      const fresh = (await store.orders.insertCreating(newOrder(), later(100_000), later(200_000))).order!;
      const paid = (await store.orders.insertCreating(newOrder(), T0, later(1))).order!;
      await store.orders.transition(paid.orderNum, ['creating'], 'paid', {}, later(2));

      const now = later(120_000);
      assert.deepEqual((await store.orders.listPendingPastExpiry(now, 10)).map((o) => o.orderNum), [pendingOld.orderNum]);
      assert.deepEqual((await store.orders.listStuckCreating(now, later(50_000), 10)).map((o) => o.orderNum), [stuck.orderNum]);
      assert.ok(!(await store.orders.listStuckCreating(now, later(150_000), 10)).some((o) => o.orderNum === fresh.orderNum), 'its lease is still held');
      assert.deepEqual((await store.orders.listUnfulfilled(now, 10)).map((o) => o.orderNum), [paid.orderNum]);
    });

    test('the whole router on this store: create -> pay -> notify -> status', async () => {
      const fresh = await engine.fresh();
      const shop = await startHarness({ database: fresh.option });
      try {
        const created = await shop.createLink({ item: 'teh' });
        assert.equal(created.status, 201);
        await shop.payAtGateway(created.body.orderNum, 'QRIS');
        await waitFor(() => shop.fulfilled.length === 1, 'onPaid');
        const status = await shop.status(created.body.orderNum, created.body.statusToken);
        assert.deepEqual([status.body.status, status.body.method, status.body.payMoney], ['paid', 'QRIS', '50000']);
      } finally {
        await shop.close();
        await fresh.cleanup();
      }
    });
  });
}

for (const engine of ENGINES) {
  describe(`the router on ${engine.name}: long values from the gateway, the caller and the browser`, () => {
    let shop: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      // Notifications lost: the status poll is what finds payments here.
      shop = await startHarness({ database: fresh.option, options: { statusRefreshMs: 0 } });
      const drop = await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
        method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { drop: true } }),
      });
      assert.equal(drop.status, 200);
    });
    after(async () => {
      await shop.close();
      await cleanup();
    });

    test('POST /va with QRIS: the EMVCo payload comes back as vaNumber and is stored', async () => {
      const answer = await shop.post('/va', { item: 'kopi', method: 'QRIS', idempotencyKey: newKey() });
      assert.equal(answer.status, 201, JSON.stringify(answer.body));
      const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, answer.body.orderNum);
      assert.ok(answer.body.vaNumber.length > 64);
      assert.equal(answer.body.vaNumber, atGateway!.vaNumber);
      const stored = (await shop.router.getOrder(answer.body.orderNum))!;
      assert.deepEqual([stored.status, stored.vaNumber], ['pending', atGateway!.vaNumber]);
    });

    test('a paid QRIS payment link found by a status poll', async () => {
      const created = await shop.createLink({ item: 'teh', method: 'QRIS' });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      await shop.payAtGateway(created.body.orderNum);
      const status = await shop.status(created.body.orderNum, created.body.statusToken);
      assert.equal(status.status, 200, JSON.stringify(status.body));
      assert.deepEqual([status.body.status, status.body.method], ['paid', 'QRIS']);
      assert.ok(status.body.vaNumber.length > 64, 'the QRIS payload from the query was stored');
      assert.ok(!shop.eventsNamed('warning').some((event) => event.code === 'status_refresh_failed'));
      await waitFor(() => shop.fulfilled.some((order) => order.orderNum === created.body.orderNum), 'onPaid');
    });

    test('createVaOrder() and createPaymentLink() with a 128-character idempotency key, replayed', async () => {
      const quote = { payMoney: 275_000, productDetail: 'Invoice 2026-002', name: 'PT Contoh', email: 'ap@contoh.co.id', phone: '081155501000' };
      const key = `invoice-${'9'.repeat(120)}`;
      assert.equal(key.length, 128);
      const va = await shop.router.createVaOrder({ method: 'VA_BNI', quote, idempotencyKey: key });
      assert.equal((await shop.router.createVaOrder({ method: 'VA_BNI', quote, idempotencyKey: key })).orderNum, va.orderNum);
      assert.equal((await shop.stored(va.orderNum))!.idempotencyKey, `server:${key}`);
      const linkKey = `link-${'8'.repeat(123)}`;
      const link = await shop.router.createPaymentLink({ quote, idempotencyKey: linkKey });
      assert.equal((await shop.router.createPaymentLink({ quote, idempotencyKey: linkKey })).orderNum, link.orderNum);
    });

    test('a Referer over 2048 characters is ignored, not stored', async () => {
      const longReferer = `${shop.merchantUrl}/checkout?${'r'.repeat(3_000)}`;
      const created = await shop.createLink({ item: 'kopi' }, { referer: longReferer });
      assert.equal(created.status, 201, JSON.stringify(created.body));
      assert.equal((await shop.stored(created.body.orderNum))!.returnTo, null);
      const longest = `${shop.merchantUrl}/checkout?${'r'.repeat(2048 - `${shop.merchantUrl}/checkout?`.length)}`;
      const kept = await shop.createLink({ item: 'kopi' }, { referer: longest });
      assert.equal((await shop.stored(kept.body.orderNum))!.returnTo, longest, 'up to 2048 characters it is kept');
    });
  });
}

describe('PostgreSQL from an existing pool or Kysely instance', { skip: DATABASE_URL ? false : 'DATABASE_URL is not set' }, () => {
  test('a merchant pool is used in its own schema and left open on close()', async () => {
    const schema = newSchemaName();
    const pool = new pg.Pool({ connectionString: DATABASE_URL, max: 3 });
    try {
      const store = createStore({ kind: 'postgres', pool, schema });
      await store.migrate();
      const { inserted } = await store.orders.insertCreating(newOrder(), T0, later(1));
      assert.ok(inserted);
      await store.close();
      const tables = await pool.query('select table_name from information_schema.tables where table_schema = $1 order by 1', [schema]);
      assert.ok(tables.rows.some((row: { table_name: string }) => row.table_name === 'tombolbayar_orders'));
      const stillOpen = await pool.query('select 1 as one');
      assert.equal(stillOpen.rows[0].one, 1);
    } finally {
      await dropSchema(DATABASE_URL!, schema);
      await pool.end();
    }
  });

  test('a Kysely instance is used as given', async () => {
    const schema = newSchemaName();
    const db = new Kysely<any>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: DATABASE_URL, max: 2 }) }) });
    try {
      const store = createStore({ kind: 'kysely', db, engine: 'postgres', schema });
      await store.migrate();
      const order = (await store.orders.insertCreating(newOrder(), T0, later(1))).order!;
      assert.equal((await store.orders.get(order.orderNum))!.payMoney, '150000');
      await store.close();
    } finally {
      await dropSchema(DATABASE_URL!, schema);
      await db.destroy();
    }
  });
});
