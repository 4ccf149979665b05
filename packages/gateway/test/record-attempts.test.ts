/**
 * Attempts recorded a group at a time (store/attempts.ts), on every engine: within one group each
 * attempt gets exactly the single-attempt bookkeeping (lease holder or not, acknowledged or not,
 * dead, a row that is gone, a row twice), and a group that fails leaves nothing behind.
 */
import assert from 'node:assert/strict';
import { afterEach, beforeEach, describe, test } from 'node:test';
import { createAttemptRecorder } from '../src/notify/attempt-recorder.ts';
import { recordAttempts, type AttemptOutcome } from '../src/store/attempts.ts';
import type { Database } from '../src/store/database.ts';
import { upsertMerchant } from '../src/store/merchants.ts';
import { openStore } from '../src/store/open.ts';
import { insertOrder } from '../src/store/orders.ts';
import { findNotification, insertNotification, listAttempts, type NotificationState } from '../src/store/outbox.ts';
import { ENGINES, freshStore, type FreshStore } from './support/engines.ts';

const T0 = 1_800_000_000_000;
const AT = T0 + 500;
const NEXT = T0 + 60_000;

interface Case {
  readonly name: string;
  /** The row before the attempt; `gone` for one that no longer exists. */
  readonly row: { state: NotificationState; leaseOwner: string | null; attemptCount: number; roundAttempts: number } | 'gone';
  readonly attempt: { owner: string; acknowledged: boolean; next: number | null };
  /** The row after (and the record returned), or undefined for none. */
  readonly expected?: { state: NotificationState; leaseOwner: string | null; attemptCount: number; roundAttempts: number; nextAttemptAt: number; deliveredAt: number | null };
}

const held = (attemptCount = 0, roundAttempts = 0) => ({ state: 'pending' as const, leaseOwner: 'w1', attemptCount, roundAttempts });

const CASES: readonly Case[] = [
  { name: 'lease holder, acknowledged: delivered', row: held(), attempt: { owner: 'w1', acknowledged: true, next: NEXT },
    expected: { state: 'delivered', leaseOwner: null, attemptCount: 1, roundAttempts: 1, nextAttemptAt: T0, deliveredAt: AT } },
  { name: 'lease holder, failed: rescheduled', row: held(3, 2), attempt: { owner: 'w1', acknowledged: false, next: NEXT },
    expected: { state: 'pending', leaseOwner: null, attemptCount: 4, roundAttempts: 3, nextAttemptAt: NEXT, deliveredAt: null } },
  { name: 'lease holder, failed, schedule done: dead', row: held(7, 7), attempt: { owner: 'w1', acknowledged: false, next: null },
    expected: { state: 'dead', leaseOwner: null, attemptCount: 8, roundAttempts: 8, nextAttemptAt: T0, deliveredAt: null } },
  { name: 'lease lost to another worker, acknowledged: recorded, not decided', row: { ...held(2, 1), leaseOwner: 'w2' },
    attempt: { owner: 'w1', acknowledged: true, next: NEXT },
    expected: { state: 'pending', leaseOwner: 'w2', attemptCount: 3, roundAttempts: 1, nextAttemptAt: T0, deliveredAt: null } },
  { name: 'lease ended by a resend, failed: recorded, not counted', row: { ...held(2, 0), leaseOwner: null },
    attempt: { owner: 'w1', acknowledged: false, next: null },
    expected: { state: 'pending', leaseOwner: null, attemptCount: 3, roundAttempts: 0, nextAttemptAt: T0, deliveredAt: null } },
  { name: 'lease holder on a row no longer pending: counted, not moved', row: { ...held(1, 1), state: 'dropped' },
    attempt: { owner: 'w1', acknowledged: true, next: NEXT },
    expected: { state: 'dropped', leaseOwner: 'w1', attemptCount: 2, roundAttempts: 2, nextAttemptAt: T0, deliveredAt: null } },
  { name: 'row gone: nothing recorded', row: 'gone', attempt: { owner: 'w1', acknowledged: true, next: NEXT } },
];

function outcome(attempt: Case['attempt'], id = `A-${Math.random().toString(36).slice(2)}`): AttemptOutcome {
  const { owner, acknowledged, next } = attempt;
  return {
    attemptId: id, owner, at: AT, acknowledged, httpStatus: acknowledged ? 200 : 503, latencyMs: 7.4,
    errorClass: acknowledged ? null : 'http-status', bodyExcerpt: acknowledged ? 'SUCCESS' : 'busy', detail: null,
    nextAttemptAt: () => next,
  };
}

for (const engine of ENGINES) {
  describe(`attempts recorded in groups on ${engine}`, () => {
    let store: FreshStore;
    let database: Database;
    let serial = 0;
    beforeEach(async () => {
      store = freshStore(engine);
      database = await openStore(store.database);
      await upsertMerchant(database.db, { merchantCode: 'SHOP-001', publicKey: 'pem' }, T0);
      await insertOrder(database.db, {
        platOrderNum: 'P-1', merchantCode: 'SHOP-001', orderNum: 'O-1', kind: 'va', status: 'PAID', method: 'VA_BCA', vaNumber: '390101', payMoney: 10_000,
        payFee: 4000, productDetail: 'x', name: 'n', email: 'e@x.com', phone: '0812', notifyUrl: 'http://127.0.0.1/n', redirectUrl: null,
        expiryPeriod: 60, requestDateTime: '20260101000000', createdAt: T0, expiresAt: T0 + 3_600_000, paidAt: T0, closedAt: null,
      });
    });
    afterEach(async () => {
      await database.close();
      await store.cleanup();
    });

    /** A notification row in the given shape; its id. */
    async function row(shape: Case['row']): Promise<string> {
      const id = `N-${++serial}`;
      if (shape === 'gone') return id;
      await insertNotification(database.db, {
        id, platOrderNum: 'P-1', merchantCode: 'SHOP-001', orderNum: 'O-1', event: 'PAID', url: 'http://127.0.0.1/n',
        fields: { code: '00' }, state: 'pending', fault: null, nextAttemptAt: T0,
      }, T0);
      await database.db
        .updateTable('notifications')
        .set({ state: shape.state, lease_owner: shape.leaseOwner, lease_until: shape.leaseOwner ? T0 + 60_000 : null,
          attempt_count: shape.attemptCount, round_attempts: shape.roundAttempts })
        .where('id', '=', id)
        .execute();
      return id;
    }

    test('every case in one group gets its own bookkeeping', async () => {
      const ids = await Promise.all(CASES.map((c) => row(c.row)));
      const outcomes = CASES.map((c) => outcome(c.attempt));
      const records = await database.db.transaction().execute((trx) => recordAttempts(trx, database.engine, ids.map((notificationId, i) => ({ notificationId, outcome: outcomes[i]! }))));
      const attempts = await listAttempts(database.db, ids);
      for (const [i, c] of CASES.entries()) {
        const record = records[i];
        const stored = await findNotification(database.db, ids[i]!);
        assert.deepEqual(record, stored, `${c.name}: the record returned is the row as stored`);
        const mine = attempts.filter((a) => a.notificationId === ids[i]);
        if (!c.expected) {
          assert.equal(record, undefined, c.name);
          assert.equal(mine.length, 0, `${c.name}: no attempt`);
          continue;
        }
        const { state, leaseOwner, attemptCount, roundAttempts, nextAttemptAt, deliveredAt } = record!;
        assert.deepEqual({ state, leaseOwner, attemptCount, roundAttempts, nextAttemptAt, deliveredAt }, c.expected, c.name);
        assert.equal(record!.updatedAt, AT, c.name);
        assert.equal(record!.leaseUntil === null, leaseOwner === null, `${c.name}: the lease ends with its owner`);
        assert.deepEqual(mine.map((a) => [a.id, a.number, a.acknowledged, a.worker, a.latencyMs, a.attemptedAt]),
          [[outcomes[i]!.attemptId, c.expected.attemptCount, c.attempt.acknowledged, c.attempt.owner, 7, AT]], `${c.name}: its attempt`);
      }
    });

    test('a notification twice in a group is recorded twice, in order', async () => {
      const id = await row(held(0, 0));
      const first = outcome({ owner: 'w1', acknowledged: false, next: NEXT });
      const second = outcome({ owner: 'w1', acknowledged: true, next: NEXT });
      const [a, b] = await database.db.transaction().execute((trx) => recordAttempts(trx, database.engine, [{ notificationId: id, outcome: first }, { notificationId: id, outcome: second }]));
      assert.deepEqual([a?.state, a?.attemptCount, a?.roundAttempts, a?.nextAttemptAt], ['pending', 1, 1, NEXT]);
      // The first ended the lease, so the second counts as an attempt only.
      assert.deepEqual([b?.state, b?.attemptCount, b?.roundAttempts, b?.leaseOwner], ['pending', 2, 1, null]);
      assert.deepEqual((await listAttempts(database.db, [id])).map((x) => [x.id, x.number]), [[first.attemptId, 1], [second.attemptId, 2]]);
    });

    test('a group that fails rejects every attempt in it and records none', async () => {
      const recorder = createAttemptRecorder(database);
      const [alone, a, b] = [await row(held()), await row(held()), await row(held())];
      // The first is written at once; the next two queue behind it and go together, and the
      // second of them reuses an attempt id, so their transaction fails.
      const first = recorder.record(alone, outcome({ owner: 'w1', acknowledged: true, next: NEXT }, 'A-alone'));
      const grouped = [
        recorder.record(a, outcome({ owner: 'w1', acknowledged: true, next: NEXT }, 'A-same')),
        recorder.record(b, outcome({ owner: 'w1', acknowledged: true, next: NEXT }, 'A-same')),
      ];
      assert.equal((await first)?.state, 'delivered');
      const settled = await Promise.allSettled(grouped);
      assert.deepEqual(settled.map((s) => s.status), ['rejected', 'rejected']);
      for (const id of [a, b]) {
        const stored = await findNotification(database.db, id);
        assert.deepEqual([stored?.state, stored?.attemptCount, stored?.leaseOwner], ['pending', 0, 'w1'], 'rolled back whole');
      }
      assert.deepEqual((await listAttempts(database.db, [alone, a, b])).map((x) => x.id), ['A-alone']);
    });
  });
}
