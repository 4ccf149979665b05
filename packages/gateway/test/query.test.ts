/** `POST /gateway/query`: the order as the gateway holds it, signed, by either number. */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatDateTime, parseWith, queryResponseSchema } from '@tombolbayar/protocol';
import { ENGINES } from './support/engines.ts';
import { startHarness, type Harness } from './support/harness.ts';

for (const engine of ENGINES) {
  describe(`query on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h.stop());

    test('a VA order by orderNum, by platOrderNum and by both, before and after payment', async () => {
      const created = await h.client.createVa({ method: 'VA_CIMB', payMoney: '200000' });
      const { orderNum, platOrderNum } = created.body as { orderNum: string; platOrderNum: string };
      for (const by of [{ orderNum }, { platOrderNum }, { orderNum, platOrderNum }]) {
        const answer = await h.client.query(by);
        assert.ok(parseWith(queryResponseSchema, answer.body).ok, JSON.stringify(answer.body));
        assert.equal(answer.body.platRespCode, 'SUCCESS');
        assert.equal(answer.body.status, 'PENDING');
        assert.equal(answer.body.platOrderNum, platOrderNum);
        assert.equal(answer.body.vaNumber, created.body.vaNumber);
        assert.equal(answer.body.payFee, '4000');
        assert.equal(answer.body.paidTime, undefined);
        assert.equal(answer.body.url, undefined);
        assert.ok(h.verifies(answer.body));
      }
      const order = await h.gateway.pay(platOrderNum);
      const paid = await h.client.query({ orderNum });
      assert.equal(paid.body.status, 'PAID');
      assert.equal(paid.body.paidTime, formatDateTime(order.paidAt!));
      assert.equal(paid.body.createTime, formatDateTime(order.createdAt));
      assert.equal(paid.body.expireTime, formatDateTime(order.expiresAt));
      assert.ok(h.verifies(paid.body));
    });

    test('a payment link reports its url, and no method until one is chosen', async () => {
      const created = await h.client.createLink();
      const before = await h.client.query({ orderNum: created.body.orderNum! });
      assert.equal(before.body.url, created.body.url);
      assert.equal(before.body.method, undefined);
      assert.equal(before.body.vaNumber, undefined);
      await h.gateway.chooseMethod(created.body.platOrderNum!, 'VA_MAYBANK');
      const after = await h.client.query({ platOrderNum: created.body.platOrderNum! });
      assert.equal(after.body.method, 'VA_MAYBANK');
      assert.match(after.body.vaNumber!, /^7828\d{12}$/);
      assert.ok(parseWith(queryResponseSchema, after.body).ok);
    });

    test('query applies expiry', async () => {
      const created = await h.client.createVa({ expiryPeriod: '30' });
      h.gateway.clock.advance(31 * 60_000);
      const answer = await h.client.query({ orderNum: created.body.orderNum! });
      assert.equal(answer.body.status, 'EXPIRED');
    });
  });
}
