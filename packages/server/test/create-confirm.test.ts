/**
 * The create path asks the gateway through `orders/confirm.ts`, like a notification, a poll and
 * `reconcile()`: after an uncertain create (`UNKNOWN` here) its query is a `confirmOrder`, so it
 * follows the one mismatch policy (a `gateway_mismatch` warning, the order left in `creating`,
 * never adopted nor re-sent) and shares the query in flight with a notification for the same
 * order (one query at the gateway; the order paid once; `onPaid` once). On SQLite and PostgreSQL.
 */
import assert from 'node:assert/strict';
import { after, afterEach, describe, test } from 'node:test';
import { sign } from '@tombolbayar/protocol/node';
import { queryOutcome } from '../src/gateway/create.ts';
import { decideAfterQuery } from '../src/gateway/retry.ts';
import { interpretQuery } from '../src/orders/confirm.ts';
import { countingStore, ENGINES } from './support/engines.ts';
import { MERCHANT_CODE, platformKeys } from './support/keys.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';
import type { GatewayAnswer } from './support/rewrite-proxy.ts';

let shop: Harness | undefined;
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});
after(async () => {
  for (const cleanup of cleanups) await cleanup();
});

async function setFaults(harness: Harness, faults: Record<string, unknown>): Promise<void> {
  const response = await fetch(`${harness.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, {
    method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify(faults),
  });
  assert.equal(response.status, 200, await response.text());
}

/** An answer changed on the path and signed again with the platform key: verified, and wrong. */
function resigned(answer: GatewayAnswer, changes: Record<string, string>): GatewayAnswer {
  const { platSign: _old, ...fields } = { ...answer.fields, ...changes } as Record<string, string>;
  return { status: answer.status, fields: { ...fields, platSign: sign(fields, platformKeys().privateKey) } };
}

const callsFor = (harness: Harness, orderNum: string) =>
  harness.eventsNamed('gateway.call').filter((call) => call.orderNum === orderNum).map((call) => `${call.operation}:${call.outcome}`);

describe('the create loop reads a confirmation with the one policy', () => {
  const expected = { orderNum: 'PBORDER0000000001', payMoney: '150000', platOrderNum: null };
  const found = (payMoney: string) => ({
    ok: true as const,
    value: {
      platRespCode: 'SUCCESS', platRespMessage: 'ok', platSign: 'x', platOrderNum: 'PLAT1', orderNum: expected.orderNum, status: 'PENDING', method: 'VA_BCA',
      name: 'B', email: 'b@example.com', payMoney, payFee: '0', productDetail: 'K', createTime: '20261123100000', expireTime: '20261123110000',
    } as never,
  });
  const table: Array<[string, ReturnType<typeof interpretQuery>, string]> = [
    ['the gateway has it: adopt', interpretQuery(expected, found('150000')), 'adopt'],
    ['another amount: abandon, never adopt nor re-send', interpretQuery(expected, found('1500')), 'abandon'],
  ];
  for (const [name, confirmation, action] of table) {
    test(name, () => assert.equal(decideAfterQuery(queryOutcome(confirmation)).action, action));
  }
});

describe('the create path through confirm', () => {
  test('a verified query answer with another amount: gateway_mismatch, the order left creating, nothing re-sent', async () => {
    shop = await startHarness({ rewriter: true });
    await setFaults(shop, { create: { respond: 'UNKNOWN', orderCreated: true } });
    shop.rewriter!.rewrite = (answer, path) => (path === '/gateway/query' ? resigned(answer, { payMoney: '1500' }) : undefined);
    const created = await shop.createLink({ item: 'kopi', idempotencyKey: newKey() });
    assert.equal(created.status, 502, JSON.stringify(created.body));
    assert.equal(created.body.error.code, 'gateway_response_invalid');
    const orderNum = shop.eventsNamed('order.transition')[0]!.orderNum;
    assert.deepEqual(callsFor(shop, orderNum), ['prepaidOrder:unknown', 'query:success'], 'asked once, never re-sent, never asked again');
    const mismatches = shop.eventsNamed('warning').filter((warning) => warning.code === 'gateway_mismatch');
    assert.deepEqual(mismatches.map((warning) => warning.orderNum), [orderNum], 'the one mismatch policy: one warning naming the order');
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating', 'not adopted, not failed: for reconcile() and a person');
    assert.equal(shop.onPaidCalls.length, 0);
  });
});

for (const engine of ENGINES) {
  describe(`the create path shares its query with a notification (${engine.name})`, () => {
    test('an uncertain create and a notification for the same order: one query, paid once, onPaid once', async () => {
      const store = await countingStore(engine);
      cleanups.push(store.cleanup);
      shop = await startHarness({ rewriter: true, database: store.option, options: { statusRefreshMs: false } });
      // The create is answered UNKNOWN though stored; the gateway's own notifications are lost,
      // so the only notification is the one this test delivers.
      await setFaults(shop, { create: { respond: 'UNKNOWN', orderCreated: true }, notifications: { drop: true } });
      let release: () => void = () => {};
      const released = new Promise<void>((resolve) => (release = resolve));
      let queriesHeld = 0;
      shop.rewriter!.hold = (path) => (path === '/gateway/query' ? ((queriesHeld += 1), released) : undefined);
      try {
        const creating = shop.createLink({ item: 'kopi', idempotencyKey: newKey() });
        await waitFor(() => queriesHeld === 1, "the create loop's query, held at the gateway's door");
        const orderNum = shop.eventsNamed('order.transition')[0]!.orderNum;
        assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating');
        // Meanwhile the customer pays; the gateway's notification (here built and signed by the
        // test, as the gateway would) reaches the shop while the create's question is unanswered.
        await shop.payAtGateway(orderNum);
        const platOrderNum = await shop.platOrderNumOf(orderNum);
        const fields = {
          code: '00', msg: 'SUCCESS', status: 'SUCCESS', name: 'Budi Santoso', email: 'budi@example.com',
          orderNum, platOrderNum, payMoney: '150000', method: 'VA_BCA', payFee: '4000', vaNumber: '1234567890123',
        };
        const readsBefore = store.ordersRead();
        let answered = false;
        const notified = fetch(`${shop.mountUrl}/notify`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ ...fields, platSign: sign(fields, platformKeys().privateKey) }).toString(),
        }).finally(() => (answered = true));
        // Its order lookup done, the notification joins the confirmation in flight.
        await waitFor(() => store.ordersRead() > readsBefore || answered, "the notification's order lookup");
        assert.equal(answered, false, 'the notification waits for the confirmation in flight');
        release();
        const [created, notification] = await Promise.all([creating, notified]);
        assert.equal(created.status, 201, JSON.stringify(created.body));
        assert.ok([200, 503].includes(notification.status), `${notification.status} ${await notification.text()}`);
        assert.equal(queriesHeld, 1, 'one query reached the gateway');
        assert.deepEqual(callsFor(shop, orderNum), ['prepaidOrder:unknown', 'query:success']);
        await waitFor(() => shop!.fulfilled.length === 1, 'onPaid');
        assert.equal((await shop.router.getOrder(orderNum))!.status, 'paid');
        const toPaid = shop.eventsNamed('order.transition').filter((transition) => transition.orderNum === orderNum && transition.to === 'paid');
        assert.equal(toPaid.length, 1, 'paid once');
        assert.equal(shop.onPaidCalls.length, 1);
      } finally {
        release();
      }
    });
  });
}
