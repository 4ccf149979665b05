/**
 * `reconcile()`, the safety net: lost notifications, orders stuck in `creating`, and `onPaid`
 * runs that failed are all caught up by asking the real gateway. The router's clock is moved
 * forward instead of waiting for expiry.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { MERCHANT_CODE } from './support/keys.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

const HOUR = 3_600_000;

/** A shop whose clock the test moves, with the gateway's notifications dropped (lost in transit). */
async function shopWithLostNotifications(extra: Parameters<typeof startHarness>[0] = {}) {
  const clock = { offset: 0 };
  const harness = await startHarness({ ...extra, options: { statusRefreshMs: false, now: () => Date.now() + clock.offset, ...extra.options } });
  const put = await fetch(`${harness.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { drop: true } }),
  });
  assert.equal(put.status, 200);
  return { harness, clock };
}

describe('reconcile()', () => {
  test('a payment whose notification was lost is found, marked paid and fulfilled once', async () => {
    const { harness, clock } = await shopWithLostNotifications();
    shop = harness;
    const created = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(created.body.orderNum);
    assert.equal((await shop.status(created.body.orderNum, created.body.statusToken)).body.status, 'pending', 'nobody told us');

    assert.deepEqual(await shop.router.reconcile(), { checked: 0, paid: 0, expired: 0, failed: 0, fulfilled: 0, fulfilmentFailed: 0, unreachable: 0, errors: 0 }, 'not overdue yet');
    clock.offset = HOUR + 60_000;
    const report = await shop.router.reconcile();
    assert.deepEqual(report, { checked: 1, paid: 1, expired: 0, failed: 0, fulfilled: 1, fulfilmentFailed: 0, unreachable: 0, errors: 0 });
    const status = await shop.status(created.body.orderNum, created.body.statusToken);
    assert.deepEqual([status.body.status, status.body.method], ['paid', 'VA_BCA']);
    assert.equal(shop.onPaidCalls.length, 1);
    const transition = shop.eventsNamed('order.transition').at(-1)!;
    assert.deepEqual([transition.from, transition.to, transition.source], ['pending', 'paid', 'reconcile']);
    assert.equal((await shop.router.reconcile()).checked, 0, 'nothing left to do');
  });

  test('an expiry or a failure whose notification was lost ends the order', async () => {
    const { harness, clock } = await shopWithLostNotifications();
    shop = harness;
    const expired = await shop.createLink({ item: 'kopi' });
    const failed = await shop.createLink({ item: 'teh' });
    await fetch(`${shop.gatewayUrl}/sandbox/orders/${await shop.platOrderNumOf(expired.body.orderNum)}/expire`, { method: 'POST' });
    await fetch(`${shop.gatewayUrl}/sandbox/orders/${await shop.platOrderNumOf(failed.body.orderNum)}/fail`, { method: 'POST' });
    clock.offset = HOUR + 60_000;
    const report = await shop.router.reconcile();
    assert.deepEqual([report.checked, report.expired, report.failed, report.paid], [2, 1, 1, 0]);
    assert.equal((await shop.status(expired.body.orderNum, expired.body.statusToken)).body.status, 'expired');
    assert.equal((await shop.status(failed.body.orderNum, failed.body.statusToken)).body.status, 'failed');
    assert.equal(shop.onPaidCalls.length, 0);
  });

  test('an order the gateway still holds as pending is left alone', async () => {
    const { harness, clock } = await shopWithLostNotifications();
    shop = harness;
    const created = await shop.createLink({ item: 'kopi' });
    clock.offset = HOUR + 60_000; // our clock is ahead of the gateway's
    const report = await shop.router.reconcile();
    assert.deepEqual([report.checked, report.paid, report.expired, report.failed], [1, 0, 0, 0]);
    assert.equal((await shop.router.getOrder(created.body.orderNum))!.status, 'pending');
  });

  test('one order the database refuses to update does not stop the run: a warning naming it, counted, the others handled', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'pb-reconcile-'));
    const file = join(dir, 'orders.sqlite');
    try {
      const { harness, clock } = await shopWithLostNotifications({ database: { kind: 'sqlite', file } });
      shop = harness;
      const poisoned = await shop.createLink({ item: 'kopi' });
      const healthy = await shop.createLink({ item: 'teh' });
      await shop.payAtGateway(poisoned.body.orderNum);
      await shop.payAtGateway(healthy.body.orderNum);
      // A real failure, from the database itself: every UPDATE of that one row is aborted.
      const sqlite = new BetterSqlite3(file);
      sqlite.exec(`CREATE TRIGGER poisoned_row BEFORE UPDATE ON tombolbayar_orders WHEN OLD.order_num = '${poisoned.body.orderNum}'
        BEGIN SELECT RAISE(ABORT, 'this row cannot be written'); END`);
      clock.offset = HOUR + 60_000;

      const report = await shop.router.reconcile();
      assert.deepEqual([report.checked, report.paid, report.fulfilled, report.errors], [2, 1, 1, 1]);
      const warning = shop.eventsNamed('warning').find((event) => event.code === 'reconcile_order_failed');
      assert.ok(warning, 'a warning was emitted');
      assert.equal(warning.orderNum, poisoned.body.orderNum);
      assert.match(String((warning.error as Error).message), /this row cannot be written/);
      assert.equal((await shop.router.getOrder(healthy.body.orderNum))!.status, 'paid', 'the next order was still handled');
      assert.equal((await shop.router.getOrder(poisoned.body.orderNum))!.status, 'pending');

      sqlite.exec('DROP TRIGGER poisoned_row');
      sqlite.close();
      const next = await shop.router.reconcile();
      assert.deepEqual([next.checked, next.paid, next.fulfilled, next.errors], [1, 1, 1, 0], 'picked up by the next run');
      assert.deepEqual(shop.fulfilled.map((order) => order.orderNum).sort(), [healthy.body.orderNum, poisoned.body.orderNum].sort());
    } finally {
      await shop?.close();
      shop = undefined;
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an onPaid that failed runs again on the next reconcile, until it returns', async () => {
    const { harness, clock } = await shopWithLostNotifications({ onPaidFailures: 1 });
    shop = harness;
    const created = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(created.body.orderNum);
    clock.offset = HOUR + 60_000;
    const first = await shop.router.reconcile();
    assert.deepEqual([first.paid, first.fulfilled, first.fulfilmentFailed], [1, 0, 1]);
    assert.equal((await shop.router.getOrder(created.body.orderNum))!.fulfilError, 'Error: fulfilment backend is down');
    const second = await shop.router.reconcile();
    assert.deepEqual([second.checked, second.fulfilled, second.fulfilmentFailed], [0, 1, 0]);
    assert.deepEqual(shop.onPaidCalls.map((call) => call.attempt), [1, 2]);
    assert.equal(shop.fulfilled.length, 1);
    assert.equal((await shop.router.reconcile()).fulfilled, 0);
  });

  test('orders stuck in creating: adopted when the gateway has them, failed when it never saw them', async () => {
    const clock = { offset: 0 };
    // Timeouts far above what a busy machine needs: the faults come from the proxy, not the clock.
    shop = await startHarness({ proxy: true, options: { now: () => Date.now() + clock.offset, timeoutMs: 5_000, totalTimeoutMs: 5_000, maxRetries: 0 } });
    // One order the gateway never saw (down), one it registered but could not answer for (cut).
    await shop.proxy!.down();
    const neverSeenKey = newKey();
    assert.equal((await shop.createLink({ item: 'kopi', idempotencyKey: neverSeenKey })).status, 503);
    await shop.proxy!.up();
    shop.proxy!.mode = 'cut';
    assert.equal((await shop.createLink({ item: 'teh' })).status, 503);
    shop.proxy!.mode = 'pass';
    const [neverSeen, registered] = shop.eventsNamed('order.transition').filter((event) => event.from === null).map((event) => event.orderNum);

    assert.equal((await shop.router.reconcile()).checked, 0, 'too recent: a create may still be running');
    clock.offset = 5 * 60_000;
    const report = await shop.router.reconcile();
    assert.deepEqual([report.checked, report.failed], [2, 1]);
    assert.equal((await shop.router.getOrder(neverSeen!))!.status, 'failed');
    const adopted = (await shop.router.getOrder(registered!))!;
    assert.equal(adopted.status, 'pending');
    assert.ok(adopted.url, 'the link is known from the query');
    assert.ok(await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, registered!));

    const replay = await shop.createLink({ item: 'kopi', idempotencyKey: neverSeenKey });
    assert.equal(replay.status, 503);
    assert.equal(replay.body.error.retryable, false, 'this key is spent: start again with a new one');
    assert.match(replay.body.error.message, /never reached the gateway/);
  });

  test('between reconciles, a status poll asks the gateway (throttled) when the notification is late', async () => {
    const { harness } = await shopWithLostNotifications({ options: { statusRefreshMs: 0 } });
    shop = harness;
    const created = await shop.createLink({ item: 'teh' });
    await shop.payAtGateway(created.body.orderNum, 'EWALLET_OVO');
    const status = await shop.status(created.body.orderNum, created.body.statusToken);
    assert.deepEqual([status.body.status, status.body.method], ['paid', 'EWALLET_OVO']);
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid after the poll');
    const transition = shop.eventsNamed('order.transition').at(-1)!;
    assert.deepEqual([transition.to, transition.source], ['paid', 'query']);
  });

  test('with the default throttle, polls right after creation do not reach the gateway (a link without a method: once, for the method)', async () => {
    shop = await startHarness();
    const chosen = await shop.createLink({ item: 'teh', method: 'VA_BCA' });
    for (let poll = 0; poll < 5; poll += 1) await shop.status(chosen.body.orderNum, chosen.body.statusToken);
    assert.deepEqual(shop.eventsNamed('gateway.call').map((call) => call.operation), ['prepaidOrder'], 'the create answered everything');
    const open = await shop.createLink({ item: 'teh' });
    for (let poll = 0; poll < 5; poll += 1) await shop.status(open.body.orderNum, open.body.statusToken);
    const calls = shop.eventsNamed('gateway.call').map((call) => call.operation);
    // The first poll asks whether a method was chosen on the hosted page; the next ones, within
    // the second, are throttled.
    assert.deepEqual(calls, ['prepaidOrder', 'prepaidOrder', 'query']);
  });
});
