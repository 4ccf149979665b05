/**
 * Concurrency guarantees held by the database, not by luck: 20 simultaneous creates with one
 * orderNum give exactly one order; racing state changes give exactly one winner.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { uniqueOrderNum } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { notifiedOf, startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { countRows } from './support/inspect.ts';

for (const engine of ENGINES) {
  describe(`races on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      // Any of pay, fail and expire may win: the merchant asks to be told of each.
      h = await startHarness(engine, notifiedOf(['paid', 'failed', 'expired']));
    });
    after(() => h.stop());

    for (const endpoint of ['createVa', 'createLink'] as const) {
      test(`20 concurrent ${endpoint} calls with one orderNum: 1 SUCCESS, 19 FAIL, 1 row`, async () => {
        const orderNum = uniqueOrderNum('RACE');
        const answers = await Promise.all(Array.from({ length: 20 }, () => h.client[endpoint]({ orderNum, method: 'VA_MANDIRI' })));
        const codes = answers.map((answer) => answer.body.platRespCode);
        assert.equal(codes.filter((code) => code === 'SUCCESS').length, 1);
        assert.equal(codes.filter((code) => code === 'FAIL').length, 19);
        for (const answer of answers.filter((a) => a.body.platRespCode === 'FAIL')) {
          assert.equal(answer.body.platRespMessage, 'orderNum: is already used by another order of this merchant');
          assert.ok(h.verifies(answer.body));
        }
        assert.equal(await countRows(h.store, 'orders', { merchant_code: MERCHANT_CODE, order_num: orderNum }), 1);
      });
    }

    test('pay, fail and expire racing on one order: exactly one wins, one notification', async () => {
      const created = await h.client.createVa();
      const platOrderNum = created.body.platOrderNum!;
      const outcomes = await Promise.allSettled([
        h.gateway.pay(platOrderNum),
        h.gateway.fail(platOrderNum),
        h.gateway.expire(platOrderNum),
        h.gateway.pay(platOrderNum),
        h.gateway.fail(platOrderNum),
      ]);
      const won = outcomes.filter((outcome) => outcome.status === 'fulfilled');
      assert.equal(won.length, 1);
      for (const lost of outcomes.filter((outcome) => outcome.status === 'rejected')) {
        assert.equal((lost as PromiseRejectedResult).reason.code, 'order-not-pending');
      }
      assert.equal(await countRows(h.store, 'notifications', { plat_order_num: platOrderNum }), 1);
    });

    test('two customers choosing a method on one link at once: one choice sticks', async () => {
      const created = await h.client.createLink();
      const platOrderNum = created.body.platOrderNum!;
      const outcomes = await Promise.allSettled([
        h.gateway.chooseMethod(platOrderNum, 'VA_BCA'),
        h.gateway.chooseMethod(platOrderNum, 'QRIS'),
        h.gateway.chooseMethod(platOrderNum, 'EWALLET_OVO'),
      ]);
      assert.equal(outcomes.filter((outcome) => outcome.status === 'fulfilled').length, 1);
      const order = await h.gateway.findOrder(platOrderNum);
      const winner = outcomes.find((outcome) => outcome.status === 'fulfilled') as PromiseFulfilledResult<{ method: string }>;
      assert.equal(order?.method, winner.value.method);
    });
  });
}
