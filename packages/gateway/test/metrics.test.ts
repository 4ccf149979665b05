/**
 * Issue 34, the gateway's metrics: orders made on both endpoints, paid, expired and failed in the
 * sandbox, their notifications delivered to one receiver and refused by another; `GET /metrics`
 * scraped over HTTP shows each counter moved by exactly that, histograms with samples, the queue
 * gauges read from the store, and no label value holding an order number, e-mail, phone or URL.
 * The route's access rule: loopback without forwarding headers, or the bearer token.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { register as globalRegistry, Registry } from 'prom-client';
import { ENGINES } from './support/engines.ts';
import { notifiedOf, startHarness, type Harness } from './support/harness.ts';
import { parseExposition, valueOf, type Sample } from './support/prometheus.ts';
import { ALWAYS_SUCCESS, eventually, startReceiver, type Receiver } from './support/receiver.ts';

const TOKEN = 'metrics-test-token-0123456789';
const P = 'tombolbayar_gateway_';

async function scrape(h: Harness, headers: Record<string, string> = {}): Promise<{ status: number; text: string; type: string | null }> {
  const response = await fetch(`${h.url}/metrics`, { headers });
  return { status: response.status, text: await response.text(), type: response.headers.get('content-type') };
}

async function samples(h: Harness): Promise<Sample[]> {
  const answer = await scrape(h);
  assert.equal(answer.status, 200, answer.text);
  return parseExposition(answer.text);
}

for (const engine of ENGINES) {
  describe(`gateway metrics on ${engine}`, () => {
    let h: Harness;
    let accepting: Receiver;
    let refusing: Receiver;
    before(async () => {
      accepting = await startReceiver();
      refusing = await startReceiver(() => ({ status: 500, body: 'not now' }));
      h = await startHarness(engine, { timeScale: 0.001, metrics: { token: TOKEN }, ...notifiedOf(['paid', 'failed', 'expired']) });
    });
    after(async () => {
      await h.stop();
      await accepting.close();
      await refusing.close();
    });

    async function settled(orderNum: string) {
      return eventually(async () => {
        const list = await h.gateway.deliveries.list({ orderNum });
        return list.length === 1 && list[0]!.state === 'delivered' ? list[0]! : undefined;
      }, 30_000, `the notification of ${orderNum} to be delivered`);
    }

    test('each counter moves by exactly what happened; histograms and gauges read sensibly', async () => {
      const before = await samples(h);
      const paidVa = await h.client.createVa({ notifyUrl: accepting.url, method: 'VA_BCA' });
      const expiredLink = await h.client.createLink({ notifyUrl: accepting.url });
      const failedVa = await h.client.createVa({ notifyUrl: refusing.url, method: 'VA_BCA' });
      for (const created of [paidVa, expiredLink, failedVa]) assert.equal(created.body.platRespCode, 'SUCCESS', JSON.stringify(created.body));
      await h.gateway.pay(paidVa.body.platOrderNum!);
      await h.gateway.expire(expiredLink.body.platOrderNum!);
      await h.gateway.fail(failedVa.body.platOrderNum!);

      // The refused notification waits in the queue: the gauges read it from the store.
      await refusing.waitFor(1);
      const waiting = await eventually(async () => {
        const now = await samples(h);
        return valueOf(now, `${P}notification_queue_depth`) >= 1 ? now : undefined;
      }, 20_000, 'the queue depth to show the refused notification');
      assert.ok(valueOf(waiting, `${P}notification_oldest_undelivered_age_seconds`) >= 0);
      refusing.answer(ALWAYS_SUCCESS);

      const deliveries = await Promise.all([paidVa, expiredLink, failedVa].map((created) => settled(created.body.orderNum!)));
      const refusedAttempts = deliveries[2]!.attempts.filter((attempt) => !attempt.acknowledged).length;
      assert.ok(refusedAttempts >= 1);
      const after = await eventually(async () => {
        const now = await samples(h);
        return valueOf(now, `${P}notification_queue_depth`) === 0 ? now : undefined;
      }, 20_000, 'the queue depth to come back to 0');
      const moved = (name: string, labels: Record<string, string> = {}) => valueOf(after, `${P}${name}`, labels) - valueOf(before, `${P}${name}`, labels);

      assert.equal(moved('orders_created_total', { endpoint: 'pay', method: 'VA_BCA' }), 2);
      assert.equal(moved('orders_created_total', { endpoint: 'prepaidOrder', method: 'none' }), 1);
      for (const to of ['paid', 'expired', 'failed']) {
        assert.equal(moved('order_transitions_total', { to }), 1, `transitions to ${to}`);
        assert.equal(moved('notifications_enqueued_total', { kind: to }), 1, `${to} notifications queued`);
      }
      assert.equal(moved('notification_attempts_total', { outcome: 'delivered' }), 3);
      assert.equal(moved('notification_attempts_total', { outcome: 'refused' }), refusedAttempts);
      assert.equal(moved('notification_attempt_duration_seconds_count', { outcome: 'delivered' }), 3);
      assert.equal(moved('notification_attempt_duration_seconds_count', { outcome: 'refused' }), refusedAttempts);
      assert.equal(moved('notification_retry_lag_seconds_count'), 3 + refusedAttempts);
      assert.equal(moved('notifications_given_up_total'), 0);
      assert.equal(moved('outbox_lease_losses_total'), 0);
      assert.ok(moved('outbox_worker_rounds_total', { outcome: 'ok' }) >= 1);
      assert.equal(moved('http_request_duration_seconds_count', { route: '/gateway/pay', outcome: '2xx' }), 2);
      assert.equal(moved('http_request_duration_seconds_count', { route: '/gateway/prepaidOrder', outcome: '2xx' }), 1);
      assert.equal(valueOf(after, `${P}notification_oldest_undelivered_age_seconds`), 0);
      for (const statement of ['select', 'insert', 'update']) {
        assert.ok(moved('db_statement_duration_seconds_count', { statement }) > 0, `${statement} statements observed`);
      }
      const pool = ['in_use', 'idle', 'waiting'].map((state) => valueOf(after, `${P}db_pool_connections`, { state }));
      assert.ok(pool.every((count) => count >= 0) && pool[0]! + pool[1]! >= 1, `pool ${pool.join('/')}`);
      if (engine === 'sqlite') assert.deepEqual(pool, [0, 1, 0]);

      // Only low-cardinality values: nothing of an order, a customer or a receiver.
      const forbidden = [paidVa, expiredLink, failedVa].flatMap((created) => [created.body.orderNum!, created.body.platOrderNum!]);
      forbidden.push('budi@example.com', '081234567890', '127.0.0.1', 'http:', '@');
      for (const sample of after.filter((s) => s.name.startsWith(P))) {
        for (const value of Object.values(sample.labels)) {
          for (const secret of forbidden) assert.ok(!value.includes(secret), `${sample.name} label ${value} holds ${secret}`);
        }
      }
    });

    test('GET /metrics: loopback without forwarding headers, or the bearer token; else 403 saying why', async () => {
      const plain = await scrape(h);
      assert.equal(plain.status, 200);
      assert.match(plain.type ?? '', /^text\/plain; version=0\.0\.4/);
      assert.match(plain.text, /# TYPE tombolbayar_gateway_orders_created_total counter/);

      const proxied = await scrape(h, { 'x-forwarded-for': '203.0.113.7' });
      assert.equal(proxied.status, 403);
      assert.equal(JSON.parse(proxied.text).reason, 'forwarded');
      assert.equal((await scrape(h, { forwarded: 'for=203.0.113.7' })).status, 403);

      const withToken = await scrape(h, { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}` });
      assert.equal(withToken.status, 200);
      assert.match(withToken.text, /tombolbayar_gateway_/);

      const wrong = await scrape(h, { 'x-forwarded-for': '203.0.113.7', authorization: `Bearer ${TOKEN}x` });
      assert.equal(wrong.status, 403);
      const body = JSON.parse(wrong.text) as { error: string; reason: string; message: string };
      assert.equal(body.reason, 'wrong_token');
      assert.ok(!body.message.includes(TOKEN), 'the refusal never repeats the token');
    });
  });
}

describe('gateway metrics options', () => {
  test("default: the gateway's own Registry, never the global one; a given registry is used; false: none, and no route", async () => {
    const own = await startHarness('sqlite');
    const registry = new Registry();
    const given = await startHarness('sqlite', { metrics: { registry } });
    const off = await startHarness('sqlite', { metrics: false });
    try {
      assert.ok(own.gateway.metrics instanceof Registry);
      assert.notEqual(own.gateway.metrics, globalRegistry);
      assert.equal((await globalRegistry.metrics()).includes('tombolbayar_gateway_'), false);
      assert.equal(given.gateway.metrics, registry);
      assert.match(await registry.metrics(), /tombolbayar_gateway_order_transitions_total/);
      assert.equal(off.gateway.metrics, undefined);
      assert.equal((await fetch(`${off.url}/metrics`)).status, 404);
      const created = await off.client.createVa();
      assert.equal(created.body.platRespCode, 'SUCCESS');
    } finally {
      await Promise.all([own.stop(), given.stop(), off.stop()]);
    }
  });
});
