/**
 * The store's contract, run on every engine: uniqueness by the database, compare-and-set
 * transitions, leases that never hand one notification to two workers, and attempt bookkeeping.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import type { Order } from '../src/domain/types.ts';
import { openDatabase, type Database } from '../src/store/database.ts';
import { uniqueViolation } from '../src/store/errors.ts';
import { deleteFaultRule, findFaultRules, putFaultRule } from '../src/sandbox/fault-store.ts';
import { migrateSandbox } from '../src/sandbox/migrations.ts';
import { upsertMerchant } from '../src/store/merchants.ts';
import { openStore } from '../src/store/open.ts';
import { assignMethod, findOrderByPlatOrderNum, insertOrder, transitionOrder } from '../src/store/orders.ts';
import {
  claimDueNotifications,
  insertNotification,
  listAttempts,
  nextClaimDelayMs,
  resendNotification,
} from '../src/store/outbox.ts';
import { recordAttempt, type AttemptOutcome } from '../src/store/attempts.ts';
import { ENGINES, freshStore, type FreshStore } from './support/engines.ts';

const T0 = 1_800_000_000_000;

function order(overrides: Partial<Order> = {}): Order {
  return {
    platOrderNum: `P-${Math.random().toString(36).slice(2)}`, merchantCode: 'SHOP-001', orderNum: `O-${Math.random().toString(36).slice(2)}`,
    kind: 'va', status: 'PENDING', method: 'VA_BCA', vaNumber: `39010${Math.floor(Math.random() * 1e11)}`, payMoney: 999_999_999_999,
    payFee: 4000, productDetail: 'x', name: 'n', email: 'e@x.com', phone: '0812', notifyUrl: 'http://127.0.0.1/n', redirectUrl: null,
    expiryPeriod: 60, requestDateTime: '20260101000000', createdAt: T0, expiresAt: T0 + 3_600_000, paidAt: null, closedAt: null,
    ...overrides,
  };
}

function outcome(owner: string, acknowledged: boolean, next: number | null = T0 + 1000): AttemptOutcome {
  return {
    attemptId: `A-${Math.random().toString(36).slice(2)}`, owner, at: T0, acknowledged, httpStatus: acknowledged ? 200 : 500,
    latencyMs: 12.6, errorClass: acknowledged ? null : 'http-status', bodyExcerpt: acknowledged ? 'SUCCESS' : 'no', detail: null,
    nextAttemptAt: () => next,
  };
}

for (const engine of ENGINES) {
  describe(`store contract on ${engine}`, () => {
    let store: FreshStore;
    let database: Database;
    beforeEach(async () => {
      store = freshStore(engine);
      database = await openStore(store.database);
      await upsertMerchant(database.db, { merchantCode: 'SHOP-001', publicKey: 'pem' }, T0);
    });
    afterEach(async () => {
      await database.close();
      await store.cleanup();
    });

    test('migrations are idempotent and safe to run concurrently', async () => {
      const more = await Promise.all([openStore(store.database), openStore(store.database)]);
      await Promise.all(more.map((db) => db.close()));
    });

    test('orders round-trip with exact integers', async () => {
      const created = order();
      await insertOrder(database.db, created);
      assert.deepEqual(await findOrderByPlatOrderNum(database.db, created.platOrderNum), created);
    });

    test('(merchantCode, orderNum) and vaNumber are unique, enforced by the database', async () => {
      const first = order();
      await insertOrder(database.db, first);
      await assert.rejects(insertOrder(database.db, order({ orderNum: first.orderNum })), (e: unknown) => uniqueViolation(e) === 'order_num');
      await assert.rejects(insertOrder(database.db, order({ vaNumber: first.vaNumber })), (e: unknown) => uniqueViolation(e) === 'va_number');
      await insertOrder(database.db, order({ vaNumber: null }));
      await insertOrder(database.db, order({ vaNumber: null }));
    });

    test('transitions are compare-and-set', async () => {
      const created = order();
      await insertOrder(database.db, created);
      const results = await Promise.all([
        transitionOrder(database.db, created.platOrderNum, 'PAID', T0 + 1),
        transitionOrder(database.db, created.platOrderNum, 'FAILED', T0 + 1),
        transitionOrder(database.db, created.platOrderNum, 'PAID', T0 + 1),
      ]);
      assert.equal(results.filter(Boolean).length, 1);

      const later = order();
      await insertOrder(database.db, later);
      assert.equal(await transitionOrder(database.db, later.platOrderNum, 'EXPIRED', later.expiresAt - 1), undefined, 'not yet due');
      assert.equal(await transitionOrder(database.db, later.platOrderNum, 'PAID', later.expiresAt), undefined, 'too late to pay');
      assert.equal((await transitionOrder(database.db, later.platOrderNum, 'EXPIRED', later.expiresAt))?.status, 'EXPIRED');

      const early = order();
      await insertOrder(database.db, early);
      assert.equal((await transitionOrder(database.db, early.platOrderNum, 'EXPIRED', T0, { force: true }))?.status, 'EXPIRED');

      const noMethod = order({ method: null, vaNumber: null, payFee: null });
      await insertOrder(database.db, noMethod);
      assert.equal(await transitionOrder(database.db, noMethod.platOrderNum, 'PAID', T0), undefined, 'no payment without a method');
      const chosen = await assignMethod(database.db, noMethod.platOrderNum, { method: 'QRIS', vaNumber: 'qr-1', payFee: 7 }, T0);
      assert.equal(chosen?.method, 'QRIS');
      assert.equal(await assignMethod(database.db, noMethod.platOrderNum, { method: 'VA_BCA', vaNumber: 'va-2', payFee: 4000 }, T0), undefined);
      assert.equal((await transitionOrder(database.db, noMethod.platOrderNum, 'PAID', T0))?.paidAt, T0);
    });

    async function queue(count: number, nextAttemptAt = T0) {
      const created = order();
      await insertOrder(database.db, created);
      const ids: string[] = [];
      for (let i = 0; i < count; i++) {
        const id = `N-${i}-${Math.random().toString(36).slice(2)}`;
        ids.push(id);
        await insertNotification(database.db, {
          id, platOrderNum: created.platOrderNum, merchantCode: 'SHOP-001', orderNum: created.orderNum, event: 'PAID',
          url: created.notifyUrl, fields: { code: '00', platSign: 'sig' }, state: 'pending', fault: null, nextAttemptAt,
        }, T0);
      }
      return ids;
    }

    test('concurrent claims never hand one notification to two workers', async () => {
      const ids = await queue(30);
      const claims = await Promise.all(
        ['w1', 'w2', 'w3'].map((owner) => claimDueNotifications(database.db, database.engine, { owner, now: T0, leaseNow: T0, leaseMs: 60_000, limit: 12 })),
      );
      const claimed = claims.flat().map((n) => n.id);
      assert.equal(new Set(claimed).size, claimed.length, 'no notification claimed twice');
      assert.ok(claimed.length >= 12 && claimed.length <= 30);
      const rest = await claimDueNotifications(database.db, database.engine, { owner: 'w4', now: T0, leaseNow: T0, leaseMs: 60_000, limit: 100 });
      assert.equal(claimed.length + rest.length, ids.length, 'every notification claimed exactly once');
      assert.equal((await claimDueNotifications(database.db, database.engine, { owner: 'w5', now: T0 + 59_999, leaseNow: T0 + 59_999, leaseMs: 60_000, limit: 100 })).length, 0, 'live leases hold');
      const clockMoved = { owner: 'w5', now: T0 + 36_000_000, leaseNow: T0 + 1, leaseMs: 60_000, limit: 100 };
      assert.equal((await claimDueNotifications(database.db, database.engine, clockMoved)).length, 0, 'moving the gateway clock frees no lease');
      assert.equal((await claimDueNotifications(database.db, database.engine, { owner: 'w5', now: T0, leaseNow: T0 + 60_000, leaseMs: 60_000, limit: 100 })).length, 30, 'expired leases are reclaimed');
    });

    test('notifications not yet due are not claimed', async () => {
      await queue(2, T0 + 5000);
      assert.equal((await claimDueNotifications(database.db, database.engine, { owner: 'w', now: T0, leaseNow: T0, leaseMs: 1000, limit: 10 })).length, 0);
      assert.equal((await claimDueNotifications(database.db, database.engine, { owner: 'w', now: T0 + 5000, leaseNow: T0, leaseMs: 1000, limit: 10 })).length, 2);
    });

    test('the next claim waits for the later of the due time (gateway clock) and the lease end (real time)', async () => {
      assert.equal(await nextClaimDelayMs(database.db, { now: T0, leaseNow: T0 }), undefined, 'nothing pending');
      await queue(1, T0);
      assert.equal(await nextClaimDelayMs(database.db, { now: T0 + 1000, leaseNow: T0 }), -1000, 'overdue: at once');
      await claimDueNotifications(database.db, database.engine, { owner: 'w1', now: T0, leaseNow: T0 + 100, leaseMs: 60_000, limit: 1 });
      assert.equal(await nextClaimDelayMs(database.db, { now: T0, leaseNow: T0 + 100 }), 60_000, 'a leased row waits for its lease');
      assert.equal(await nextClaimDelayMs(database.db, { now: T0 + 36_000_000, leaseNow: T0 + 100 }), 60_000, 'a moved gateway clock does not shorten it');
      assert.equal(await nextClaimDelayMs(database.db, { now: T0, leaseNow: T0 + 60_100 }), 0, 'claimable when the lease ends');
      await queue(1, T0 + 5000);
      assert.equal(await nextClaimDelayMs(database.db, { now: T0, leaseNow: T0 + 100 }), 5000, 'the earliest row decides');
    });

    test('attempts: rescheduled, delivered, dead; a lost lease records but does not decide', async () => {
      const [a, b, c] = await queue(3);
      await claimDueNotifications(database.db, database.engine, { owner: 'w1', now: T0, leaseNow: T0, leaseMs: 60_000, limit: 10 });
      const rescheduled = await recordAttempt(database.db, database.engine, a!, outcome('w1', false, T0 + 1000));
      assert.deepEqual([rescheduled?.state, rescheduled?.nextAttemptAt, rescheduled?.attemptCount, rescheduled?.leaseOwner], ['pending', T0 + 1000, 1, null]);
      assert.equal((await recordAttempt(database.db, database.engine, b!, outcome('w1', true)))?.state, 'delivered');
      assert.equal((await recordAttempt(database.db, database.engine, c!, outcome('w1', false, null)))?.state, 'dead');

      const [d] = await queue(1);
      await claimDueNotifications(database.db, database.engine, { owner: 'w1', now: T0, leaseNow: T0, leaseMs: 60_000, limit: 10 });
      await resendNotification(database.db, d!, T0);
      const lost = await recordAttempt(database.db, database.engine, d!, outcome('w1', true));
      assert.equal(lost?.state, 'pending', "a resend in the meantime wins over the old lease holder's outcome");
      assert.equal(lost?.roundAttempts, 0);
      const attempts = await listAttempts(database.db, [a!, b!, c!, d!]);
      assert.equal(attempts.length, 4);
      assert.equal(attempts.find((x) => x.notificationId === a)?.latencyMs, 13);
    });

    test('fault rules (the sandbox\'s own table): per order and per merchant', async () => {
      await migrateSandbox(database);
      await putFaultRule(database.db, { merchantCode: 'SHOP-001', settings: { create: { respond: 'UNKNOWN' } } }, T0);
      await putFaultRule(database.db, { merchantCode: 'SHOP-001', orderNum: 'O1', settings: { notifications: { drop: true } } }, T0);
      await putFaultRule(database.db, { merchantCode: 'SHOP-001', orderNum: 'O1', settings: { notifications: { duplicate: true } } }, T0);
      assert.deepEqual(await findFaultRules(database.db, 'SHOP-001', 'O1'), {
        merchant: { create: { respond: 'UNKNOWN' } },
        order: { notifications: { duplicate: true } },
      });
      assert.equal(await deleteFaultRule(database.db, 'SHOP-001'), true);
      assert.deepEqual(await findFaultRules(database.db, 'SHOP-001', 'O2'), {});
    });
  });
}

test('SQLite runs in WAL mode with a busy timeout', async () => {
  const store = freshStore('sqlite');
  const database = openDatabase(store.database);
  try {
    const { sql } = await import('kysely');
    const mode = await sql<{ journal_mode: string }>`pragma journal_mode`.execute(database.db);
    assert.equal(mode.rows[0]?.journal_mode, 'wal');
    const timeout = await sql<{ timeout: number }>`pragma busy_timeout`.execute(database.db);
    assert.equal(timeout.rows[0]?.timeout, 5000);
  } finally {
    await database.close();
    await store.cleanup();
  }
});
