/**
 * Issue 36: what the family's public clients do on the merchant's side, and with phone numbers,
 * against this gateway unchanged (beside `compat-family-clients.test.ts`, which holds the strict
 * refusals):
 * - a handler written for the family acknowledges a paid order only (a public Klikpay ThinkPHP
 *   handler echoes nothing for anything else): with the default kinds it is never sent a FAILED
 *   or EXPIRED notification, so no attempt ever fails against it;
 * - a Django REST framework view's `Response('SUCCESS')` answers `"SUCCESS"` (JSON-rendered):
 *   delivered once, recorded as acknowledged with a note, never retried;
 * - a create with the phone as `+628…` or `628…` (a deployed client drops the leading 0) is
 *   verified over what was sent and stored as `08…`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatDateTime } from '@tombolbayar/protocol/node';
import { uniqueOrderNum } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { familyClient, familyVerify, keyConstant, REQUEST_RULES, VERIFY_RULES, type Fields } from './support/family-client.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { merchantKeys } from './support/keys.ts';
import { eventually, startReceiver, type Receiver } from './support/receiver.ts';
import { watchConnections } from '@tombolbayar/test-support/network';

const connections = watchConnections();
after(() => assert.deepEqual(connections.outsideLoopback(), [], 'no socket of this file connected beyond loopback'));

/** A create request as that client fills it. */
function createFields(notifyUrl: string, overrides: Fields = {}): Fields {
  return {
    orderNum: uniqueOrderNum('FAM'),
    payMoney: '150000',
    productDetail: 'Kopi Gayo',
    name: 'Budi Santoso',
    email: 'budi@example.com',
    phone: '081234567890',
    notifyUrl,
    expiryPeriod: '60',
    dateTime: formatDateTime(),
    ...REQUEST_RULES.extraFields.rule,
    ...overrides,
  };
}

/** The family handler: SUCCESS for a paid order, and for anything else an empty 200 (it echoes nothing). */
const successOnly = (status: string | undefined) => (status === 'SUCCESS' ? { status: 200, body: 'SUCCESS' } : { status: 200, body: '' });

for (const engine of ENGINES) {
  describe(`the family's merchant handlers and phone habits, unchanged, on ${engine}`, () => {
    let h: Harness;
    let handler: Receiver;
    let client: ReturnType<typeof familyClient>;
    let platformKey: string;
    before(async () => {
      handler = await startReceiver();
      h = await startHarness(engine, { timeScale: 0.001, notifications: { pollIntervalMs: 20 } });
      client = familyClient(h.url, MERCHANT_CODE, merchantKeys().privateKey);
      platformKey = keyConstant(h.gateway.platformPublicKey, VERIFY_RULES.key.rule);
    });
    after(async () => {
      await h.stop();
      await handler.close();
    });

    async function create(path: '/gateway/pay' | '/gateway/prepaidOrder', overrides: Fields = {}, notifyUrl = handler.url) {
      const answer = await client.post(path, createFields(notifyUrl, { method: 'VA_BCA', ...overrides }));
      assert.equal(answer.body.platRespCode, 'SUCCESS', answer.body.platRespMessage);
      assert.ok(familyVerify(answer.body, platformKey), 'their verifier accepts our platSign');
      return answer.body as Record<string, string> & { platOrderNum: string; orderNum: string };
    }

    test('a success-only handler (PAID acknowledged, nothing else): with the default kinds no attempt fails against it', async () => {
      const start = handler.received.length;
      handler.answer((index) => successOnly(handler.received[index]?.fields.status));
      assert.deepEqual((await h.gateway.findMerchant(MERCHANT_CODE))?.notify, ['paid'], 'a new merchant: what the family sends');
      const paid = await create('/gateway/pay');
      const failed = await create('/gateway/pay');
      const expired = await create('/gateway/prepaidOrder');
      await h.gateway.fail(failed.platOrderNum);
      await h.gateway.expire(expired.platOrderNum);
      await h.gateway.pay(paid.platOrderNum);
      const [delivery] = await eventually(async () => {
        const list = await h.gateway.deliveries.list({ platOrderNum: paid.platOrderNum });
        return list[0]?.state === 'delivered' ? list : undefined;
      }, 20_000, 'the PAID notification delivered');
      assert.deepEqual(delivery!.attempts.map((a) => [a.acknowledged, a.errorClass]), [[true, null]], 'one attempt, acknowledged');
      // Written in the transition's transaction or never: the outbox is the whole answer.
      for (const order of [failed, expired]) assert.deepEqual(await h.gateway.deliveries.list({ platOrderNum: order.platOrderNum }), [], order.orderNum);
      const mine = (await h.gateway.deliveries.list({ merchantCode: MERCHANT_CODE, limit: 500 })).filter((d) => [paid, failed, expired].some((o) => o.platOrderNum === d.platOrderNum));
      assert.equal(mine.flatMap((d) => d.attempts).filter((a) => !a.acknowledged).length, 0, 'no failed attempt counted against it');
      assert.deepEqual(handler.received.slice(start).map((r) => [r.fields.orderNum, r.fields.status]), [[paid.orderNum, 'SUCCESS']]);
    });

    test('a Django REST framework view answering "SUCCESS" (JSON-quoted): delivered once, noted, no retry', async () => {
      const start = handler.received.length;
      handler.answer(() => ({ status: 200, body: '"SUCCESS"' }));
      const order = await create('/gateway/pay', { method: 'VA_BNI' });
      await h.gateway.pay(order.platOrderNum);
      const [delivery] = await eventually(async () => {
        const list = await h.gateway.deliveries.list({ platOrderNum: order.platOrderNum });
        return list[0] && list[0].state !== 'pending' ? list : undefined;
      }, 20_000, 'the notification settled');
      assert.equal(delivery!.state, 'delivered');
      assert.equal(delivery!.attempts.length, 1);
      const [attempt] = delivery!.attempts;
      assert.deepEqual([attempt!.acknowledged, attempt!.httpStatus, attempt!.errorClass, attempt!.bodyExcerpt], [true, 200, null, '"SUCCESS"']);
      assert.match(attempt!.detail ?? '', /JSON-quoted/, 'the delivery log says the answer was quoted');
      assert.equal(handler.received.slice(start).filter((r) => r.fields.orderNum === order.orderNum).length, 1, 'sent once');
      // Anything else stays refused: single quotes are no JSON string.
      handler.answer(() => ({ status: 200, body: "'SUCCESS'" }));
      const refused = await create('/gateway/pay', { method: 'VA_BRI' });
      await h.gateway.pay(refused.platOrderNum);
      const [unacknowledged] = await eventually(async () => {
        const list = await h.gateway.deliveries.list({ platOrderNum: refused.platOrderNum });
        return list[0]?.attempts.length ? list : undefined;
      }, 20_000, 'a first attempt');
      assert.deepEqual([unacknowledged!.attempts[0]!.acknowledged, unacknowledged!.attempts[0]!.errorClass], [false, 'unexpected-body']);
      handler.answer(() => ({ status: 200, body: 'SUCCESS' }));
    });

    for (const phone of ['+6281234567890', '6281234567890']) {
      test(`a create with the phone ${phone}: verified as sent, stored as 081234567890`, async () => {
        const va = await create('/gateway/pay', { phone });
        assert.equal((await h.gateway.findOrder(va.platOrderNum))?.phone, '081234567890');
        const link = await create('/gateway/prepaidOrder', { phone, method: 'OVO' });
        assert.equal((await h.gateway.findOrder(link.platOrderNum))?.phone, '081234567890');
      });
    }

    test("other phone shapes stay refused, naming the field and the 08 rule; the signature stays over what was sent", async () => {
      for (const phone of ['+62 812 3456 7890', '+6581234567', '62', '0062812345678', '+6281234567890123456789']) {
        const answer = await client.post('/gateway/pay', createFields(handler.url, { method: 'VA_BCA', phone }));
        assert.equal(answer.body.platRespCode, 'FAIL', phone);
        assert.match(answer.body.platRespMessage!, /^phone: must be (08 followed by digits|at most 20 characters)/, phone);
        assert.ok(familyVerify(answer.body, platformKey), phone);
      }
      // Signed over 081…, sent as +6281…: what was sent does not verify.
      const fields = createFields(handler.url, { method: 'VA_BCA' });
      const built = client.build(fields);
      const tampered = built.text.replace('"081234567890"', '"+6281234567890"');
      const answer = await client.postText('/gateway/pay', tampered);
      assert.match(answer.body.platRespMessage!, /^sign: does not verify/);
    });
  });
}
