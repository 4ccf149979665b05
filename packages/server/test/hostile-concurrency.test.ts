/**
 * Concurrency against the real gateway, on every engine of the plug-in's store: 50 browser
 * requests with one idempotency key make one order; 200 distinct ones make 200; and a storm of
 * notifications, status polls, returns and gateway resends on paid orders runs `onPaid` exactly
 * once per order (flow.test.ts and notify.test.ts cover a double click and a poll racing one
 * notification).
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { DATABASE_URL } from './support/engines.ts';
import { MERCHANT_CODE } from './support/keys.ts';
import { returnToken } from '../src/orders/callback-urls.ts';
import { send, startShop, type HostileShop, type RawAnswer } from './hostile-support.ts';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(check: () => Promise<T | undefined> | T | undefined, what: string, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== undefined && value !== false) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}

for (const engine of DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
  describe(`plug-in concurrency on ${engine}`, () => {
    let shop: HostileShop | undefined;
    afterEach(async () => {
      await shop?.close();
      shop = undefined;
    });
    const call = (path: string, options: Parameters<typeof send>[2] = {}) => send(shop!.merchantUrl, `/pay${path}`, options);
    const createLink = (body: Record<string, unknown>) =>
      call('/links', { method: 'POST', headers: { 'content-type': 'application/json', origin: shop!.merchantUrl }, body: JSON.stringify(body) });

    test('50 concurrent creates with one idempotency key: one order here and at the gateway, one answer', async () => {
      shop = await startShop({ engine });
      const idempotencyKey = `concurrent-${engine}-${Date.now()}`;
      const answers = await Promise.all(Array.from({ length: 50 }, () => createLink({ idempotencyKey, item: 'kopi' })));
      for (const answer of answers) assert.equal(answer.status, 201, answer.text);
      const orderNums = new Set(answers.map((answer) => answer.json.orderNum));
      assert.equal(orderNums.size, 1, 'every answer names the same order');
      assert.equal(new Set(answers.map((answer) => answer.json.statusToken)).size, 1);
      const [orderNum] = orderNums;
      assert.equal(await shop.shopProbe.count('tombolbayar_orders'), 1);
      assert.equal(await shop.gatewayProbe.count('orders', 'order_num = ?', orderNum), 1);
      const creates = shop.events.filter((event) => event.name === 'gateway.call' && (event.payload as { operation: string }).operation === 'prepaidOrder');
      assert.equal(creates.length, 1, 'the gateway was asked once');
    });

    test('200 distinct creates at once: 200 orders here and at the gateway', async () => {
      // Room for all 200 at once: on a loaded machine more of them are in flight together, and
      // past maxInFlight (32) the router sheds them with 503 (availability.test.ts tests that).
      shop = await startShop({ engine, options: { maxInFlight: 256 } });
      // As a customer's element does: a retryable 503 (shed while the machine is loaded: the
      // event-loop delay counts too) is asked again with the same key, once the wave it was shed
      // from has been answered (a state, not a timer).
      const bodies = Array.from({ length: 200 }, (_, i) => ({ idempotencyKey: `distinct-${engine}-${Date.now()}-${i}`, item: i % 2 ? 'kopi' : 'teh', method: i % 3 ? null : 'QRIS' }));
      const shed = (answer: Awaited<ReturnType<typeof createLink>>) => answer.status === 503 && (answer.json as { error?: { retryable?: boolean } })?.error?.retryable === true;
      const answers = await Promise.all(bodies.map((body) => createLink(body)));
      for (let wave = 0; wave < 20 && answers.some(shed); wave += 1) {
        const again = answers.flatMap((answer, i) => (shed(answer) ? [i] : []));
        const retried = await Promise.all(again.map((i) => createLink(bodies[i]!)));
        again.forEach((i, k) => (answers[i] = retried[k]!));
      }
      assert.deepEqual(answers.filter((answer) => answer.status !== 201).map((answer) => answer.text), []);
      assert.equal(new Set(answers.map((answer) => answer.json.orderNum)).size, 200);
      assert.equal(await shop.shopProbe.count('tombolbayar_orders'), 200);
      assert.equal(await shop.gatewayProbe.count('orders', 'merchant_code = ?', MERCHANT_CODE), 200);
    });

    test('notifications, status polls, returns and resends racing on paid orders: onPaid once per order', async () => {
      const fulfilled: string[] = [];
      shop = await startShop({
        engine,
        options: {
          statusRefreshMs: 0,
          // Slow enough that every racer arrives while it runs.
          onPaid: async (order) => {
            await sleep(60);
            fulfilled.push(order.orderNum);
          },
        },
      });
      // The gateway's own deliveries are logged but held back, so the storm below decides.
      await fetch(`${shop.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { drop: true } }) });
      const created = await Promise.all(Array.from({ length: 5 }, (_, i) => createLink({ idempotencyKey: `storm-${engine}-${Date.now()}-${i}`, item: 'kopi', method: 'VA_BNI' })));
      const storms: Array<Promise<RawAnswer | Response>> = [];
      for (const { json: link } of created) {
        const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, link.orderNum);
        await shop.gateway.pay(order!.platOrderNum);
        const [delivery] = await shop.gateway.deliveries.list({ orderNum: link.orderNum });
        const form = new URLSearchParams(delivery!.fields as Record<string, string>).toString();
        const rt = returnToken(link.statusToken);
        for (let i = 0; i < 20; i++) {
          storms.push(call('/notify', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form }));
          storms.push(call(`/orders/${link.orderNum}`, { headers: { origin: shop.merchantUrl, 'Tombolbayar-Status-Token': link.statusToken } }));
          storms.push(call(`/return?order=${link.orderNum}&rt=${rt}`));
          storms.push(call(`/return/continue?order=${link.orderNum}&rt=${rt}`));
          if (i % 7 === 0) storms.push(fetch(`${shop.gatewayUrl}/sandbox/deliveries/${delivery!.id}/resend`, { method: 'POST' }));
        }
      }
      const answers = await Promise.all(storms);
      for (const answer of answers) assert.ok(answer.status < 500 || answer.status === 503, `HTTP ${answer.status}`);
      const orderNums = created.map(({ json: link }) => link.orderNum as string);
      await until(() => orderNums.every((orderNum) => fulfilled.includes(orderNum)), 'every onPaid');
      // Let the resent deliveries land too, then count.
      let states: unknown[] = [];
      await until(async () => {
        const lists = await Promise.all(orderNums.map((orderNum) => shop!.gateway.deliveries.list({ orderNum })));
        states = lists.map((list) => list.map((delivery) => `${delivery.state}:${delivery.attempts.map((a) => a.httpStatus ?? a.errorClass).join('/')}`));
        return lists.every((list) => list.every((delivery) => delivery.state === 'delivered'));
      }, 'the resent notifications acknowledged').catch((error: Error) => {
        throw new Error(`${error.message}: ${JSON.stringify(states)}`);
      });
      assert.deepEqual([...fulfilled].sort(), [...orderNums].sort(), 'onPaid ran exactly once per order');
      for (const orderNum of orderNums) {
        const stored = await shop.router.getOrder(orderNum);
        assert.equal(stored?.status, 'paid');
        assert.ok(stored?.fulfilledAt);
        assert.equal(stored?.fulfilAttempts, 1);
      }
    });
  });
}
