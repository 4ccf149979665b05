/**
 * `onPaid` exactly once while it runs: a slow `onPaid` keeps its lease alive (heartbeat), so
 * `reconcile()`, a resent notification or a status poll never start a second run beside it.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MERCHANT_CODE } from './support/keys.ts';
import { LeaseLostError } from '../src/adapters/express.ts';
import { createStore } from '../src/store/index.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';

let shop: Harness | undefined;
/** Lets a held onPaid return; also called on the way out, so a failing test never hangs close(). */
let release: () => void = () => {};
afterEach(async () => {
  release();
  await shop?.close();
  shop = undefined;
});

const LEASE_MS = 1_000;

describe('fulfilment lease', () => {
  test('an onPaid that outlasts fulfilmentLeaseMs keeps its lease: no second run beside it', async () => {
    const runs: Array<{ orderNum: string; attempt: number }> = [];
    let running = 0;
    let mostAtOnce = 0;
    const released = new Promise<void>((resolve) => (release = resolve));
    shop = await startHarness({
      options: {
        fulfilmentLeaseMs: LEASE_MS,
        statusRefreshMs: 0,
        onPaid: async (order, context) => {
          runs.push({ orderNum: order.orderNum, attempt: context.attempt });
          running += 1;
          mostAtOnce = Math.max(mostAtOnce, running);
          try {
            // The first run is a slow fulfilment backend, for as long as the test wants; a second
            // run beside it (the bug) returns at once, so the test fails instead of hanging.
            if (running === 1) await released;
          } finally {
            running -= 1;
          }
        },
      },
    });
    // Notifications are lost, so the status poll finds the payment and starts onPaid.
    const drop = await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { drop: true } }),
    });
    assert.equal(drop.status, 200);
    const created = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(created.body.orderNum);
    assert.equal((await shop.status(created.body.orderNum, created.body.statusToken)).body.status, 'paid');
    await waitFor(() => runs.length === 1, 'onPaid started');

    // Well past two leases: without a heartbeat the lease would have run out long ago.
    await new Promise((resolve) => setTimeout(resolve, 2.5 * LEASE_MS));
    const meanwhile = await shop.router.reconcile();
    assert.deepEqual([meanwhile.fulfilled, meanwhile.fulfilmentFailed, meanwhile.errors], [0, 0, 0], 'reconcile saw the lease held');
    assert.equal(runs.length, 1, 'no second onPaid started');
    assert.ok(!shop.eventsNamed('warning').some((event) => event.code === 'fulfilment_lease_lost'));

    release();
    await waitFor(() => shop!.eventsNamed('fulfilment.succeeded').length === 1, 'onPaid returned');
    const done = await shop.router.getOrder(created.body.orderNum);
    assert.ok(done!.fulfilledAt, 'fulfilled_at written');
    assert.equal((await shop.router.reconcile()).fulfilled, 0, 'never again');
    assert.deepEqual(runs, [{ orderNum: created.body.orderNum, attempt: 1 }]);
    assert.equal(mostAtOnce, 1);
  });
});

describe('fenced onPaid in one process', () => {
  test('a heartbeat that finds the lease taken over aborts the signal; the run records nothing and says so', async () => {
    const seen: Array<{ attempt: number; aborted: boolean; reason: unknown; key: string }> = [];
    shop = await startHarness({
      options: {
        statusRefreshMs: 0,
        fulfilmentLeaseMs: LEASE_MS,
        fulfilmentHeartbeatMs: 100,
        onPaid: async (_order, { attempt, signal, key }) => {
          if (attempt === 1) await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          seen.push({ attempt, aborted: signal.aborted, reason: signal.reason, key });
        },
      },
    });
    const created = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(created.body.orderNum);
    await waitFor(async () => (await shop!.stored(created.body.orderNum))?.fulfilAttempts === 1, 'onPaid started');
    // Another process takes the order over, as if this one's lease had run out.
    const later = new Date(Date.now() + 10 * LEASE_MS);
    const inspector = createStore(shop.database);
    try {
      assert.equal((await inspector.orders.claimFulfilment(created.body.orderNum, later, new Date(later.getTime() + LEASE_MS)))?.attempt, 2);
      await waitFor(() => shop!.eventsNamed('fulfilment.lease_lost').length === 1, 'fulfilment.lease_lost');
      assert.equal(seen.length, 1);
      assert.equal(seen[0]!.aborted, true, 'the run saw its signal aborted');
      assert.ok(seen[0]!.reason instanceof LeaseLostError, 'signal.reason is a LeaseLostError');
      assert.equal(seen[0]!.key, `paybutton-onpaid-${created.body.orderNum}`);
      assert.equal(shop.eventsNamed('fulfilment.succeeded').length, 0);
      assert.equal((await inspector.orders.get(created.body.orderNum))!.fulfilledAt, null, 'nothing recorded by the run that lost its lease');
    } finally {
      await inspector.close();
    }
  });

  test('close() aborts the signal of a running onPaid and waits for it to end', async () => {
    let entered: () => void = () => {};
    const started = new Promise<void>((resolve) => (entered = resolve));
    let sawAbort = false;
    shop = await startHarness({
      options: {
        statusRefreshMs: 0,
        onPaid: async (_order, { signal }) => {
          entered();
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          sawAbort = signal.aborted;
          throw signal.reason;
        },
      },
    });
    const created = await shop.createLink({ item: 'kopi' });
    await shop.payAtGateway(created.body.orderNum);
    await started;
    const closing = shop;
    shop = undefined;
    await closing.close();
    assert.equal(sawAbort, true);
    assert.equal(closing.eventsNamed('fulfilment.failed').length, 1, 'shutdown is not a lost lease: the next run retries');
  });
});

