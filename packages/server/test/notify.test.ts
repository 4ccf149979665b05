/**
 * Notifications: forged, tampered, duplicated, reordered, early, for unknown orders, and an
 * onPaid that throws. Genuine ones come from the real gateway; hostile ones are posted by the
 * test, signed with a stranger's key or (to play a gateway that misbehaves) with the platform key.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MERCHANT_CODE, strangerKeys } from './support/keys.ts';
import { startHarness, waitFor, type Harness } from './support/harness.ts';
import { notifiedOfEveryKind } from './support/sandbox-gateway.ts';
import { asPlatform, createOrder, notify, paidAtGateway, paidFields, signedBy, statusOf } from './support/notifications.ts';
import { countingStore, ENGINES } from './support/engines.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

const rejections = (harness: Harness) => harness.eventsNamed('notification.rejected').map((event) => event.reason);

describe('hostile notifications leave the order unpaid', () => {
  test('forged with another key: 401, not acknowledged, an event, still pending', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const answer = await notify(shop, signedBy(paidFields(order), strangerKeys().privateKey));
    assert.equal(answer.status, 401);
    assert.match(answer.text, /^REJECTED bad_signature: /);
    assert.equal(await statusOf(shop, order), 'pending');
    assert.deepEqual(rejections(shop), ['bad_signature']);
    assert.equal(shop.onPaidCalls.length, 0);
  });

  test('a field changed after signing, or one added: the signature covers every received field', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const genuine = asPlatform(paidFields(order));
    assert.equal((await notify(shop, { ...genuine, vaNumber: '999' })).status, 401);
    assert.equal((await notify(shop, { ...genuine, note: 'free' })).status, 401);
    assert.equal((await notify(shop, { ...genuine, platSign: '' })).status, 401);
    const { platSign: _dropped, ...unsigned } = genuine;
    assert.equal((await notify(shop, unsigned)).status, 401);
    assert.equal(await statusOf(shop, order), 'pending');
    assert.deepEqual(rejections(shop), ['bad_signature', 'bad_signature', 'bad_signature', 'bad_signature']);
  });

  test('a validly signed amount that differs from the order: 409 with a fixed text, the amounts in the event only, still unpaid', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const answer = await notify(shop, asPlatform(paidFields(order, { payMoney: '1500' })));
    assert.equal(answer.status, 409);
    assert.equal(answer.text, 'REJECTED not_matched: the notification does not match an order here; nothing was changed');
    assert.equal(await statusOf(shop, order), 'pending');
    const [event] = shop.eventsNamed('notification.rejected');
    assert.deepEqual([event!.reason, event!.orderNum, event!.httpStatus], ['amount_mismatch', order.orderNum, 409]);
    assert.match(event!.message, /payMoney 1500 differs from the order's 150000; the order is unchanged/);
    assert.equal(shop.onPaidCalls.length, 0);
  });

  test('another merchant or another platform order: 409', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    assert.equal((await notify(shop, asPlatform(paidFields(order, { merchantCode: 'OTHER-MERCHANT' })))).status, 409);
    assert.equal((await notify(shop, asPlatform(paidFields(order, { platOrderNum: 'someone-elses-order' })))).status, 409);
    assert.deepEqual(rejections(shop), ['merchant_mismatch', 'order_mismatch']);
    assert.equal(await statusOf(shop, order), 'pending');
  });

  test('an unknown order is not acknowledged, with the answer a mismatching one gets (no 404 oracle)', async () => {
    shop = await startHarness();
    const answer = await notify(shop, asPlatform(paidFields({ orderNum: 'PBNOSUCHORDER00000', platOrderNum: 'x', statusToken: '' })));
    assert.equal(answer.status, 409);
    assert.deepEqual(rejections(shop), ['unknown_order']);
  });

  test('signed but malformed fields: 400 naming the field', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const badStatus = await notify(shop, asPlatform(paidFields(order, { status: 'PAID' })));
    assert.equal(badStatus.status, 400);
    assert.match(badStatus.text, /invalid_fields: status: must be SUCCESS, FAILED or EXPIRED/);
    const contradictory = await notify(shop, asPlatform(paidFields(order, { code: '01' })));
    assert.equal(contradictory.status, 400);
    assert.match(contradictory.text, /invalid_fields: code and status together report no outcome/);
    assert.equal(await statusOf(shop, order), 'pending');
  });
});

describe('genuine notifications, however they arrive, pay once', () => {
  test('duplicated by the gateway: both acknowledged, onPaid once', async () => {
    shop = await startHarness();
    const put = await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { duplicate: true } }),
    });
    assert.equal(put.status, 200);
    const order = await createOrder(shop);
    await shop.payAtGateway(order.orderNum);
    const deliveries = await waitFor(async () => {
      const list = await shop!.gateway.deliveries.list({ orderNum: order.orderNum });
      return list.length === 2 && list.every((delivery) => delivery.state === 'delivered') ? list : undefined;
    }, 'both deliveries acknowledged');
    assert.equal(deliveries.length, 2);
    assert.equal(shop.onPaidCalls.length, 1);
    assert.equal(shop.fulfilled.length, 1);
    const accepted = shop.eventsNamed('notification.accepted');
    assert.deepEqual(accepted.map((event) => event.changed).sort(), [false, true]);
  });

  test('the same genuine notification posted concurrently: every copy acknowledged or retried, onPaid once', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const genuine = await paidAtGateway(shop, order);
    const answers = await Promise.all(Array.from({ length: 6 }, () => notify(shop!, genuine)));
    for (const answer of answers) assert.ok(answer.status === 200 || answer.status === 503, `${answer.status} ${answer.text}`);
    assert.ok(answers.some((answer) => answer.status === 200 && answer.text === 'SUCCESS'));
    assert.equal((await notify(shop, genuine)).text, 'SUCCESS', 'a later resend is acknowledged');
    assert.equal(shop.onPaidCalls.length, 1);
    const queries = shop.eventsNamed('gateway.call').filter((call) => call.operation === 'query');
    assert.ok(queries.length <= 6, `concurrent copies share confirmations (${queries.length} queries)`);
  });

  test('reordered: a platform-signed EXPIRED after PAID is not confirmed by the gateway and changes nothing', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    assert.equal((await notify(shop, await paidAtGateway(shop, order))).text, 'SUCCESS');
    const late = await notify(shop, asPlatform(paidFields(order, { code: '02', status: 'EXPIRED', msg: 'EXPIRED' })));
    assert.equal(late.status, 409, late.text);
    assert.match(late.text, /^REJECTED not_confirmed: /);
    assert.match(shop.eventsNamed('notification.rejected').at(-1)!.message, /the gateway reports the order PAID/);
    assert.equal(await statusOf(shop, order), 'paid');
    assert.equal(shop.onPaidCalls.length, 1);
  });

  test('a platform-signed EXPIRED, then PAID, for an order the gateway still has pending: neither moves it', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    const expired = await notify(shop, asPlatform(paidFields(order, { code: '02', status: 'EXPIRED', msg: 'EXPIRED' })));
    assert.equal(expired.status, 409, expired.text);
    assert.equal(await statusOf(shop, order), 'pending');
    const paid = await notify(shop, asPlatform(paidFields(order)));
    assert.equal(paid.status, 409, paid.text);
    assert.equal(await statusOf(shop, order), 'pending');
    assert.equal(shop.onPaidCalls.length, 0);
    assert.deepEqual(rejections(shop), ['not_confirmed', 'not_confirmed']);
    // The real payment still goes through, once.
    await shop.payAtGateway(order.orderNum);
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid after the real payment');
    assert.equal(await statusOf(shop, order), 'paid');
    assert.equal(shop.onPaidCalls.length, 1);
  });

  test('FAILED and EXPIRED from the gateway end the order (a merchant that asked for them)', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false }, gatewayOptions: notifiedOfEveryKind() });
    const expired = await createOrder(shop);
    const failed = await createOrder(shop, 'teh');
    await fetch(`${shop.gatewayUrl}/sandbox/orders/${expired.platOrderNum}/expire`, { method: 'POST' });
    await fetch(`${shop.gatewayUrl}/sandbox/orders/${failed.platOrderNum}/fail`, { method: 'POST' });
    await waitFor(async () => (await statusOf(shop!, expired)) === 'expired' && (await statusOf(shop!, failed)) === 'failed', 'both ended');
    assert.equal(shop.onPaidCalls.length, 0);
  });

  test('JSON notifications are read too', async () => {
    shop = await startHarness({ options: { statusRefreshMs: false } });
    const order = await createOrder(shop);
    assert.equal((await notify(shop, await paidAtGateway(shop, order), 'json')).text, 'SUCCESS');
    assert.equal(await statusOf(shop, order), 'paid');
  });

  test('a notification before the create answer arrives finds the stored order; the link is still returned', async () => {
    shop = await startHarness();
    await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ create: { delayMs: 1_500 } }),
    });
    const pending = shop.createLink({ item: 'kopi' });
    const orderNum = await waitFor(async () => {
      const event = shop!.eventsNamed('order.transition')[0];
      return event && (await shop!.gateway.findOrderByOrderNum(MERCHANT_CODE, event.orderNum)) ? event.orderNum : undefined;
    }, 'the gateway holds the order');
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating');
    await shop.payAtGateway(orderNum);
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid from the early notification');
    const created = await pending;
    assert.equal(created.status, 201);
    assert.equal(created.body.orderNum, orderNum);
    assert.ok(created.body.url);
    assert.equal((await shop.status(orderNum, created.body.statusToken)).body.status, 'paid');
    assert.equal(shop.onPaidCalls.length, 1);
  });
});

describe('onPaid that throws', () => {
  test('thrown once: not acknowledged, the gateway resends, onPaid runs again and succeeds', async () => {
    shop = await startHarness({ onPaidFailures: 1 });
    const order = await createOrder(shop);
    await shop.payAtGateway(order.orderNum);
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid succeeded on the resend');
    assert.deepEqual(shop.onPaidCalls.map((call) => call.attempt), [1, 2]);
    const delivery = await waitFor(async () => {
      const [found] = await shop!.gateway.deliveries.list({ orderNum: order.orderNum });
      return found?.state === 'delivered' ? found : undefined;
    }, 'the delivery acknowledged');
    const full = await shop.gateway.deliveries.get(delivery.id);
    assert.deepEqual(full!.attempts.map((attempt) => attempt.httpStatus), [500, 200]);
    assert.match(full!.attempts[0]!.bodyExcerpt ?? '', /^RETRY: onPaid failed/);
    const [failure] = shop.eventsNamed('fulfilment.failed');
    assert.equal(failure!.attempt, 1);
    assert.equal((failure!.error as Error).message, 'fulfilment backend is down');
    // The 500 is named too: the merchant sees the gateway will resend, and why.
    const unacknowledged = shop.eventsNamed('notification.rejected');
    assert.deepEqual(unacknowledged.map((event) => [event.reason, event.httpStatus, event.orderNum]), [['fulfilment_failed', 500, order.orderNum]]);
    const stored = await shop.router.getOrder(order.orderNum);
    assert.equal(stored!.fulfilAttempts, 2);
    assert.ok(stored!.fulfilledAt);
  });

  test('a status poll racing the notification still runs onPaid exactly once', async () => {
    shop = await startHarness({ options: { statusRefreshMs: 0 } });
    await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
      method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { delayMs: 200_000 } }),
    });
    const order = await createOrder(shop);
    await shop.payAtGateway(order.orderNum);
    const genuine = (await shop.gateway.deliveries.list({ orderNum: order.orderNum }))[0]!.fields as Record<string, string>;
    const [polls, notifications] = await Promise.all([
      Promise.all(Array.from({ length: 8 }, () => shop!.status(order.orderNum, order.statusToken))),
      Promise.all(Array.from({ length: 3 }, () => notify(shop!, genuine))),
    ]);
    assert.ok(polls.every((poll) => ['pending', 'paid'].includes(poll.body.status)));
    assert.ok(notifications.every((answer) => [200, 503].includes(answer.status)));
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid');
    assert.equal((await notify(shop, genuine)).text, 'SUCCESS');
    assert.equal(shop.onPaidCalls.length, 1);
  });
});

for (const engine of ENGINES) {
  describe(`a paid notification's statements: ${engine.name}`, () => {
    test('read, paid with its onPaid lease, completion recorded: three statements, onPaid once as attempt 1', async () => {
      const store = await countingStore(engine);
      try {
        shop = await startHarness({ database: store.option, options: { statusRefreshMs: false } });
        const order = await createOrder(shop);
        const genuine = await paidAtGateway(shop, order);
        const before = store.statements();
        assert.equal((await notify(shop, genuine)).text, 'SUCCESS');
        assert.equal(store.statements() - before, 3);
        assert.deepEqual(shop.onPaidCalls, [{ orderNum: order.orderNum, attempt: 1 }]);
        assert.equal((await shop.router.getOrder(order.orderNum))!.fulfilAttempts, 1);
      } finally {
        await shop?.close();
        shop = undefined;
        await store.cleanup();
      }
    });
  });
}
