/**
 * The order lifecycle through the domain API: PENDING -> PAID | EXPIRED | FAILED, expiry on read
 * and by the sweep (driven by the injectable clock), method choice for payment links, and the
 * typed refusals of each transition.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError } from '../src/index.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';
import { countRows } from './support/inspect.ts';

const rejectsWith = (promise: Promise<unknown>, code: string) =>
  assert.rejects(promise, (error: unknown) => error instanceof DomainError && error.code === code);

for (const engine of ENGINES) {
  describe(`lifecycle on ${engine}`, () => {
    let h: Harness;
    let now = Date.UTC(2026, 0, 15, 3, 0, 0);
    before(async () => {
      // A hand-driven time source; expirySweepIntervalMs large so only explicit sweeps run.
      h = await startHarness(engine, { now: () => now, expirySweepIntervalMs: 3_600_000 });
    });
    after(() => h.stop());

    test('an order expires expiryPeriod minutes after creation, applied when read', async () => {
      const created = await h.client.createVa({ expiryPeriod: '30' });
      const order = (await h.gateway.findOrder(created.body.platOrderNum!))!;
      assert.equal(order.expiresAt - order.createdAt, 30 * 60_000);
      now += 29 * 60_000;
      assert.equal((await h.gateway.findOrder(order.platOrderNum))?.status, 'PENDING');
      now += 60_000;
      const expired = await h.gateway.findOrder(order.platOrderNum);
      assert.equal(expired?.status, 'EXPIRED');
      assert.equal(expired?.closedAt, now);
      assert.equal(await countRows(h.store, 'notifications', { plat_order_num: order.platOrderNum, event: 'EXPIRED' }), 1);
      await rejectsWith(h.gateway.pay(order.platOrderNum), 'order-not-pending');
    });

    test('the sweep expires overdue orders nobody reads, once', async () => {
      const a = await h.client.createVa({ expiryPeriod: '30' });
      const b = await h.client.createLink({ expiryPeriod: '60' });
      now += 45 * 60_000;
      assert.ok((await h.gateway.sweepExpired()) >= 1);
      assert.equal(await h.gateway.sweepExpired(), 0, 'nothing left to expire');
      assert.equal(await countRows(h.store, 'orders', { plat_order_num: a.body.platOrderNum!, status: 'EXPIRED' }), 1);
      assert.equal(await countRows(h.store, 'orders', { plat_order_num: b.body.platOrderNum!, status: 'PENDING' }), 1);
    });

    test('the sandbox clock moves the gateway forward', async () => {
      const created = await h.client.createVa({ expiryPeriod: '30' });
      h.gateway.clock.advance(31 * 60_000);
      assert.equal((await h.gateway.findOrder(created.body.platOrderNum!))?.status, 'EXPIRED');
      assert.throws(() => h.gateway.clock.advance(-1), RangeError);
    });

    test('pay, fail and expire move a PENDING order once and refuse afterwards', async () => {
      for (const [action, status] of [['pay', 'PAID'], ['fail', 'FAILED'], ['expire', 'EXPIRED']] as const) {
        const created = await h.client.createVa();
        const changed = await h.gateway[action](created.body.platOrderNum!);
        assert.equal(changed.status, status);
        assert.equal(changed.paidAt, status === 'PAID' ? now + h.gateway.clock.offsetMs : null);
        await rejectsWith(h.gateway.pay(created.body.platOrderNum!), 'order-not-pending');
        await rejectsWith(h.gateway.fail(created.body.platOrderNum!), 'order-not-pending');
      }
      await rejectsWith(h.gateway.pay('nonexistent-order-number'), 'order-not-found');
    });

    test('a payment link without a method cannot be paid until one is chosen', async () => {
      const created = await h.client.createLink({ payMoney: '120000' });
      const platOrderNum = created.body.platOrderNum!;
      await rejectsWith(h.gateway.pay(platOrderNum), 'method-required');
      const chosen = await h.gateway.chooseMethod(platOrderNum, 'EWALLET_DANA');
      assert.equal(chosen.method, 'EWALLET_DANA');
      assert.equal(chosen.payFee, 1800);
      assert.match(chosen.vaNumber!, /^DANA\d{12}$/);
      await rejectsWith(h.gateway.chooseMethod(platOrderNum, 'VA_BCA'), 'method-already-chosen');
      assert.equal((await h.gateway.pay(platOrderNum)).status, 'PAID');
      await rejectsWith(h.gateway.chooseMethod(platOrderNum, 'VA_BCA'), 'order-not-pending');
    });

    test('pay can choose the method of a link in the same call', async () => {
      const created = await h.client.createLink();
      const paid = await h.gateway.pay(created.body.platOrderNum!, { method: 'VA_DANAMON' });
      assert.equal(paid.status, 'PAID');
      assert.equal(paid.method, 'VA_DANAMON');
    });

    test('choosing a method whose limits exclude the amount is refused, another method works', async () => {
      const created = await h.client.createLink({ payMoney: '5000' });
      await rejectsWith(h.gateway.chooseMethod(created.body.platOrderNum!, 'VA_BCA'), 'amount-out-of-range');
      assert.equal((await h.gateway.chooseMethod(created.body.platOrderNum!, 'QRIS')).method, 'QRIS');
    });

    test('an expired link refuses a method choice', async () => {
      const created = await h.client.createLink({ expiryPeriod: '30' });
      h.gateway.clock.advance(30 * 60_000);
      await rejectsWith(h.gateway.chooseMethod(created.body.platOrderNum!, 'VA_BCA'), 'order-not-pending');
    });
  });
}
