/**
 * Notifications end to end: a state change queues a signed form POST to notifyUrl; failures are
 * retried on the schedule (shortened by timeScale) until acknowledged or dead; every attempt is
 * logged; a notification can be resent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { notificationSchema, parseWith, verify } from '@tombolbayar/protocol/node';
import { pino } from 'pino';
import { ENGINES } from './support/engines.ts';
import { simulationsFor } from '../src/internal.ts';
import { MERCHANT_CODE, startHarness, type Harness } from './support/harness.ts';
import { ALWAYS_SUCCESS, eventually, startReceiver, type Receiver } from './support/receiver.ts';

for (const engine of ENGINES) {
  describe(`notifications on ${engine}`, () => {
    let h: Harness;
    let receiver: Receiver;
    before(async () => {
      receiver = await startReceiver();
      h = await startHarness(engine, { timeScale: 0.001 });
    });
    after(async () => {
      await h.stop();
      await receiver.close();
    });

    const verifiesWithPlatform = (fields: Record<string, string>) => {
      const { platSign, ...rest } = fields;
      return verify(rest, platSign, h.gateway.platformPublicKey);
    };

    async function settled(orderNum: string, count = 1) {
      return eventually(async () => {
        const list = await h.gateway.deliveries.list({ orderNum });
        return list.length >= count && list.every((d) => d.state !== 'pending') ? list : undefined;
      }, 20_000, `deliveries of ${orderNum} to settle`);
    }

    test('a receiver answering 500 twice then SUCCESS gets exactly 3 attempts, all logged and signed', async () => {
      const start = receiver.received.length;
      receiver.answer((index) => (index - start < 2 ? { status: 500, body: 'boom' } : { status: 200, body: 'SUCCESS\n' }));
      const created = await h.client.createVa({ notifyUrl: receiver.url, method: 'VA_PERMATA' });
      await h.gateway.pay(created.body.platOrderNum!);
      const [delivery] = await settled(created.body.orderNum!);
      assert.equal(delivery?.state, 'delivered');
      assert.equal(delivery?.attempts.length, 3);
      assert.deepEqual(delivery?.attempts.map((a) => [a.number, a.httpStatus, a.acknowledged, a.errorClass]), [
        [1, 500, false, 'http-status'],
        [2, 500, false, 'http-status'],
        [3, 200, true, null],
      ]);
      assert.equal(delivery?.attempts[0]?.bodyExcerpt, 'boom');
      for (const attempt of delivery!.attempts) assert.ok(attempt.latencyMs >= 0 && attempt.attemptedAt > 0);
      const mine = receiver.received.slice(start).filter((r) => r.fields.orderNum === created.body.orderNum);
      assert.equal(mine.length, 3);
      for (const notification of mine) {
        assert.equal(notification.contentType, 'application/x-www-form-urlencoded');
        assert.ok(verifiesWithPlatform(notification.fields), 'each attempt carries a platSign that verifies');
      }
      receiver.answer(ALWAYS_SUCCESS);
    });

    test('PAID carries every notification field and passes the protocol schema', async () => {
      const created = await h.client.createVa({ notifyUrl: receiver.url, method: 'RETAIL_ALFAMART', payMoney: '75000' });
      await h.gateway.pay(created.body.platOrderNum!);
      await settled(created.body.orderNum!);
      const got = receiver.received.find((r) => r.fields.orderNum === created.body.orderNum)!.fields;
      assert.ok(parseWith(notificationSchema, got).ok);
      assert.deepEqual(
        { ...got, platSign: undefined },
        {
          code: '00',
          msg: 'SUCCESS',
          status: 'SUCCESS',
          method: 'RETAIL_ALFAMART',
          name: 'Budi Santoso',
          email: 'budi@example.com',
          orderNum: created.body.orderNum,
          platOrderNum: created.body.platOrderNum,
          payMoney: '75000',
          payFee: '5000',
          vaNumber: created.body.vaNumber,
          platSign: undefined,
        },
      );
      assert.ok(verifiesWithPlatform(got));
      assert.equal(verifiesWithPlatform({ ...got, payMoney: '1' }), false);
    });

    test('by default only PAID is notified, as the family does: FAILED and EXPIRED are never queued', async () => {
      assert.deepEqual((await h.gateway.findMerchant(MERCHANT_CODE))?.notify, ['paid']);
      const failed = await h.client.createVa({ notifyUrl: receiver.url });
      await h.gateway.fail(failed.body.platOrderNum!);
      const expired = await h.client.createLink({ notifyUrl: receiver.url });
      await h.gateway.expire(expired.body.platOrderNum!);
      const paid = await h.client.createVa({ notifyUrl: receiver.url, method: 'VA_BCA' });
      await h.gateway.pay(paid.body.platOrderNum!);
      await settled(paid.body.orderNum!);
      for (const order of [failed, expired]) {
        assert.deepEqual(await h.gateway.deliveries.list({ orderNum: order.body.orderNum! }), [], 'nothing in the outbox');
        assert.equal(receiver.received.some((r) => r.fields.orderNum === order.body.orderNum), false);
      }
    });

    test('FAILED and EXPIRED are notified on request; a link without a method leaves method, fee and code out', async () => {
      const updated = await h.gateway.updateMerchant(MERCHANT_CODE, { notify: ['expired', 'paid', 'failed'] });
      assert.deepEqual(updated.notify, ['paid', 'failed', 'expired'], 'stored in its canonical order');
      await assert.rejects(h.gateway.updateMerchant(MERCHANT_CODE, { notify: ['failed'] }), /notify: must list paid/);
      await assert.rejects(h.gateway.updateMerchant('NO-SUCH-1', { notify: ['paid'] }), /merchantCode: no merchant/);
      const failed = await h.client.createVa({ notifyUrl: receiver.url });
      await h.gateway.fail(failed.body.platOrderNum!);
      const expired = await h.client.createLink({ notifyUrl: receiver.url });
      await h.gateway.expire(expired.body.platOrderNum!);
      await settled(failed.body.orderNum!);
      await settled(expired.body.orderNum!);
      const failedFields = receiver.received.find((r) => r.fields.orderNum === failed.body.orderNum)!.fields;
      const expiredFields = receiver.received.find((r) => r.fields.orderNum === expired.body.orderNum)!.fields;
      assert.deepEqual([failedFields.code, failedFields.status, failedFields.msg], ['01', 'FAILED', 'FAILED']);
      assert.deepEqual([expiredFields.code, expiredFields.status], ['02', 'EXPIRED']);
      assert.equal(expiredFields.method, undefined);
      assert.equal(expiredFields.payFee, undefined);
      assert.equal(expiredFields.vaNumber, undefined);
      assert.ok(parseWith(notificationSchema, expiredFields).ok);
      assert.ok(verifiesWithPlatform(failedFields) && verifiesWithPlatform(expiredFields));
      await h.gateway.updateMerchant(MERCHANT_CODE, { notify: ['paid'] });
    });

    test('a QRIS notification leaves the QR payload out of vaNumber', async () => {
      const created = await h.client.createLink({ notifyUrl: receiver.url, method: 'QRIS' });
      await h.gateway.pay(created.body.platOrderNum!);
      await settled(created.body.orderNum!);
      const got = receiver.received.find((r) => r.fields.orderNum === created.body.orderNum)!.fields;
      assert.equal(got.method, 'QRIS');
      assert.equal(got.vaNumber, undefined);
      assert.ok(parseWith(notificationSchema, got).ok);
    });

    test("a failed attempt's log line names the URL it went to, without the query's values", async () => {
      const lines: Array<Record<string, unknown>> = [];
      const logger = pino({ level: 'info' }, { write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>) });
      const logged = await startHarness(engine, { timeScale: 0.001, logger });
      const refusing = await startReceiver(() => ({ status: 503, body: 'down' }));
      try {
        const created = await logged.client.createVa({ notifyUrl: `${refusing.url}?token=s3cr3t-value&shop=kopi`, method: 'VA_BRI' });
        await logged.gateway.pay(created.body.platOrderNum!);
        const failed = await eventually(async () => lines.find((line) => line.msg === 'notification attempt failed'), 20_000, 'a failed-attempt line');
        assert.equal(failed.url, `${refusing.url}?token=_&shop=_`);
        assert.equal(failed.httpStatus, 503);
        assert.equal(failed.detail, 'HTTP 503');
        assert.equal(JSON.stringify(lines).includes('s3cr3t-value'), false, 'the query value is in no line');
      } finally {
        await logged.stop();
        await refusing.close();
      }
    });

    test('a notification that is never acknowledged ends dead after the whole schedule; resend delivers it', async () => {
      const dead = await startHarness(engine, { timeScale: 0.00001 });
      const refusing = await startReceiver(() => ({ status: 503, body: 'down' }));
      try {
        const created = await dead.client.createVa({ notifyUrl: refusing.url });
        await dead.gateway.pay(created.body.platOrderNum!);
        const [delivery] = await eventually(async () => {
          const list = await dead.gateway.deliveries.list({ orderNum: created.body.orderNum! });
          return list[0]?.state === 'dead' ? list : undefined;
        });
        assert.equal(delivery?.attempts.length, 11);
        assert.equal(refusing.received.length, 11);

        refusing.answer(ALWAYS_SUCCESS);
        const resent = await dead.gateway.deliveries.resend(delivery!.id);
        assert.equal(resent?.state, 'pending');
        const after = await eventually(async () => {
          const found = await dead.gateway.deliveries.get(delivery!.id);
          return found?.state === 'delivered' ? found : undefined;
        });
        assert.equal(after.attempts.length, 12);
        assert.equal(after.attempts[11]?.acknowledged, true);
        assert.equal(await dead.gateway.deliveries.resend('no-such-id'), undefined);
      } finally {
        await dead.stop();
        await refusing.close();
      }
    });
  });
}

describe('notifications in production mode', () => {
  test('a notifyUrl whose name resolves to the loopback is refused at connect time, and logged', async () => {
    const resolved: string[] = [];
    // Offline DNS: the merchant's host name points at the gateway's own machine (a test resolver
    // names nothing beyond loopback; private ranges: delivery-ssrf.test.ts).
    const lookup = ((hostname: string, _options: unknown, callback: (error: Error | null, addresses: { address: string; family: number }[]) => void) => {
      resolved.push(hostname);
      callback(null, [{ address: '127.0.0.1', family: 4 }]);
    }) as unknown as import('node:net').LookupFunction;
    const h = await startHarness('sqlite', { sandbox: false, timeScale: 1, notifications: { pollIntervalMs: 50, lookup } });
    try {
      const created = await h.client.createVa({ notifyUrl: 'https://shop.example.com/notify' });
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      await simulationsFor(h.gateway).pay(created.body.platOrderNum!);
      const [delivery] = await eventually(async () => {
        const list = await h.gateway.deliveries.list({ orderNum: created.body.orderNum! });
        return list[0]?.attempts.length ? list : undefined;
      });
      assert.equal(delivery?.attempts[0]?.errorClass, 'refused-address');
      assert.equal(delivery?.attempts[0]?.httpStatus, null);
      assert.match(delivery?.attempts[0]?.detail ?? '', /loopback range \(127\.0\.0\.1\)/);
      assert.equal(delivery?.state, 'pending', 'retried on the schedule like any failure');
      assert.deepEqual(resolved, ['shop.example.com']);
    } finally {
      await h.stop();
    }
  });
});
