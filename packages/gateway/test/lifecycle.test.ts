/**
 * The order lifecycle through the domain API: PENDING -> PAID | EXPIRED | FAILED, expiry on read
 * and by the sweep (driven by the injectable clock), method choice for payment links, and the
 * typed refusals of each transition.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DomainError, NOTIFICATION_KINDS } from '../src/index.ts';
import { ENGINES } from './support/engines.ts';
import { notifiedOf, startHarness, type Harness } from './support/harness.ts';
import { countRows } from './support/inspect.ts';

const rejectsWith = (promise: Promise<unknown>, code: string) =>
  assert.rejects(promise, (error: unknown) => error instanceof DomainError && error.code === code);

for (const engine of ENGINES) {
  describe(`lifecycle on ${engine}`, () => {
    let h: Harness;
    let now = Date.UTC(2026, 0, 15, 3, 0, 0);
    before(async () => {
      // A hand-driven time source; expirySweepIntervalMs large so only explicit sweeps run.
      h = await startHarness(engine, { ...notifiedOf(NOTIFICATION_KINDS), now: () => now, expirySweepIntervalMs: 3_600_000 });
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

    test('the method of a link can be given back before paying ("choose another method" on the hosted page), never that of a VA order', async () => {
      /** The page's form post, as the customer's browser sends it; answers where it redirects to. */
      const change = async (orderNum: string, method: string) => {
        const response = await fetch(`${h.url}/pay/method/change`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' },
          body: new URLSearchParams({ orderNum, method, lang: 'en' }).toString(),
        });
        assert.equal(response.status, 303);
        return response.headers.get('location');
      };
      const link = (await h.client.createLink()).body.platOrderNum!;
      const first = await h.gateway.chooseMethod(link, 'VA_BCA');
      assert.equal(await change(link, 'VA_BCA'), `/pay?orderNum=${link}&lang=en`);
      const released = (await h.gateway.findOrder(link))!;
      assert.deepEqual([released.status, released.method, released.vaNumber, released.payFee], ['PENDING', null, null, null]);
      await rejectsWith(h.gateway.pay(link), 'method-required');
      assert.equal(await countRows(h.store, 'orders', { va_number: first.vaNumber! }), 0, 'the old VA number is gone');
      assert.equal(await countRows(h.store, 'notifications', { plat_order_num: link }), 0, 'nothing to notify: the order is still PENDING');
      const second = await h.gateway.chooseMethod(link, 'QRIS');
      assert.equal(await change(link, 'VA_BCA'), `/pay?orderNum=${link}&lang=en&notice=method-changed`, 'an out-of-date page');
      assert.equal((await h.gateway.findOrder(link))?.vaNumber, second.vaNumber);
      assert.equal((await h.gateway.pay(link)).status, 'PAID');
      assert.equal(await change(link, 'QRIS'), `/pay?orderNum=${link}&lang=en&notice=not-pending`);
      assert.equal((await h.gateway.findOrder(link))?.method, 'QRIS');

      const va = (await h.client.createVa()).body.platOrderNum!;
      const fixed = (await h.gateway.findOrder(va))!;
      assert.equal(await change(va, fixed.method!), `/pay?orderNum=${va}&lang=en&notice=method-locked`);
      assert.equal((await h.gateway.findOrder(va))?.vaNumber, fixed.vaNumber);
    });

    test('an expired link refuses a method choice', async () => {
      const created = await h.client.createLink({ expiryPeriod: '30' });
      h.gateway.clock.advance(30 * 60_000);
      await rejectsWith(h.gateway.chooseMethod(created.body.platOrderNum!, 'VA_BCA'), 'order-not-pending');
    });
  });
}
