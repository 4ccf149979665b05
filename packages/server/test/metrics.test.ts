/**
 * The plug-in's metrics (issue 34 contract): every counter moved by exactly what happened, read
 * over HTTP through `metricsExpress` (and `metricsNode`), with no order number, e-mail, phone or
 * URL in any label; the access rule of the route; two plug-ins in one registry.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { Registry } from 'prom-client';
import { createPayButton } from '../src/index.ts';
import { metricsExpress } from '../src/adapters/express.ts';
import { metricsNode } from '../src/adapters/node.ts';
import { strangerKeys } from './support/keys.ts';
import { createOrder, notify, paidAtGateway, paidFields, signedBy } from './support/notifications.ts';
import { validOptions } from './support/options.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';

const TOKEN = 'metrics-token-for-tests-0123456789';

type Samples = Map<string, number>;

/** The Prometheus text as `name{labels}` → value (labels as written). */
function parse(text: string): Samples {
  const samples: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const cut = line.lastIndexOf(' ');
    samples.set(line.slice(0, cut), Number(line.slice(cut + 1)));
  }
  return samples;
}

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string; samples: Samples; type: string | null }> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  return { status: response.status, text, samples: parse(text), type: response.headers.get('content-type') };
}

const value = (samples: Samples, key: string): number => samples.get(key) ?? 0;

/** How much each of `keys` moved between two scrapes. */
const moved = (before: Samples, after: Samples, keys: readonly string[]) => Object.fromEntries(keys.map((key) => [key, value(after, key) - value(before, key)]));

describe('plug-in metrics, scraped through metricsExpress', () => {
  const registry = new Registry();
  let shop: Harness;
  let metricsUrl: string;
  before(async () => {
    shop = await startHarness({
      onPaidFailures: 1,
      options: { metrics: { registry }, sweep: false },
      configureApp: (app) => app.get('/metrics', metricsExpress(registry, { token: TOKEN })),
    });
    metricsUrl = `${shop.merchantUrl}/metrics`;
  });
  after(async () => {
    await shop.close();
  });

  test('creations, refusals, notifications, confirmations and onPaid runs are counted exactly', async () => {
    const before = (await scrape(metricsUrl)).samples;

    const paid = await createOrder(shop);
    const va = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', idempotencyKey: newKey() });
    assert.equal(va.status, 201, JSON.stringify(va.body));
    const polled = await shop.createLink({ item: 'teh' });
    assert.equal((await shop.status(polled.body.orderNum, polled.body.statusToken)).body.status, 'pending');
    assert.equal((await shop.createLink({ item: 'kopi', payMoney: '1' })).status, 400);
    assert.equal((await shop.createLink({ item: 'kopi' }, { origin: 'https://elsewhere.example' })).status, 403);
    assert.equal((await notify(shop, signedBy(paidFields(paid), strangerKeys().privateKey))).status, 401);

    // Paid: the first onPaid throws (500, resent), the second returns (200).
    await shop.payAtGateway(paid.orderNum);
    await waitFor(() => shop.fulfilled.some((order) => order.orderNum === paid.orderNum), 'onPaid succeeded on the resend');
    await waitFor(async () => (await shop.gateway.deliveries.list({ orderNum: paid.orderNum }))[0]?.state === 'delivered', 'the delivery acknowledged');

    const scraped = await scrape(metricsUrl);
    assert.equal(scraped.status, 200);
    assert.match(scraped.type ?? '', /^text\/plain/);
    const p = 'tombolbayar_plugin_';
    assert.deepEqual(moved(before, scraped.samples, [
      `${p}orders_created_total{kind="link"}`,
      `${p}orders_created_total{kind="va"}`,
      `${p}orders_refused_total{reason="invalid_request"}`,
      `${p}orders_refused_total{reason="origin_not_allowed"}`,
      `${p}gateway_calls_total{operation="prepaidOrder",outcome="success"}`,
      `${p}gateway_calls_total{operation="pay",outcome="success"}`,
      `${p}notifications_received_total{outcome="bad_signature"}`,
      `${p}notifications_received_total{outcome="fulfilment_failed"}`,
      `${p}notifications_received_total{outcome="accepted"}`,
      `${p}confirmations_total{outcome="confirmed",source="notification"}`,
      `${p}confirmations_total{outcome="not_confirmed",source="status"}`,
      `${p}order_transitions_total{to="pending",source="create"}`,
      `${p}order_transitions_total{to="paid",source="notification"}`,
      `${p}fulfilment_runs_total{outcome="failed"}`,
      `${p}fulfilment_runs_total{outcome="succeeded"}`,
    ]), {
      [`${p}orders_created_total{kind="link"}`]: 2,
      [`${p}orders_created_total{kind="va"}`]: 1,
      [`${p}orders_refused_total{reason="invalid_request"}`]: 1,
      [`${p}orders_refused_total{reason="origin_not_allowed"}`]: 1,
      [`${p}gateway_calls_total{operation="prepaidOrder",outcome="success"}`]: 2,
      [`${p}gateway_calls_total{operation="pay",outcome="success"}`]: 1,
      [`${p}notifications_received_total{outcome="bad_signature"}`]: 1,
      [`${p}notifications_received_total{outcome="fulfilment_failed"}`]: 1,
      [`${p}notifications_received_total{outcome="accepted"}`]: 1,
      [`${p}confirmations_total{outcome="confirmed",source="notification"}`]: 1,
      [`${p}confirmations_total{outcome="not_confirmed",source="status"}`]: 1,
      [`${p}order_transitions_total{to="pending",source="create"}`]: 3,
      [`${p}order_transitions_total{to="paid",source="notification"}`]: 1,
      [`${p}fulfilment_runs_total{outcome="failed"}`]: 1,
      [`${p}fulfilment_runs_total{outcome="succeeded"}`]: 1,
    });
    // Histograms have samples.
    assert.ok(value(scraped.samples, `${p}http_request_duration_seconds_count{route="links",outcome="2xx"}`) >= 2);
    assert.ok(value(scraped.samples, `${p}http_request_duration_seconds_count{route="notify",outcome="4xx"}`) >= 1);
    assert.ok(value(scraped.samples, `${p}gateway_call_duration_seconds_count{operation="prepaidOrder",outcome="success"}`) >= 2);
    assert.equal(value(scraped.samples, `${p}fulfilment_duration_seconds_count{outcome="succeeded"}`) - value(before, `${p}fulfilment_duration_seconds_count{outcome="succeeded"}`), 1);
    assert.ok(scraped.samples.has(`${p}db_pool_connections{state="idle"}`), 'the pool gauge is read at scrape');
    // Nothing of an order or a customer in any label.
    for (const secret of [paid.orderNum, polled.body.orderNum, va.body.orderNum, paid.platOrderNum, 'budi@example.com', '081234567890', 'Budi', '://']) {
      assert.ok(!scraped.text.includes(secret), `${secret} must not appear in the metrics`);
    }
  });

  test('the route: loopback without forwarding headers, else the bearer token', async () => {
    assert.equal((await scrape(metricsUrl)).status, 200);
    const forwarded = await scrape(metricsUrl, { 'x-forwarded-for': '203.0.113.9' });
    assert.equal(forwarded.status, 403);
    assert.match(JSON.parse(forwarded.text).error.message, /proxy/);
    assert.equal((await scrape(metricsUrl, { forwarded: 'for=203.0.113.9' })).status, 403);
    assert.equal((await scrape(metricsUrl, { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${TOKEN}` })).status, 200);
    const wrong = await scrape(metricsUrl, { authorization: 'Bearer not-the-token' });
    assert.equal(wrong.status, 403);
    assert.equal(JSON.parse(wrong.text).error.reason, 'wrong_token');
    assert.match(JSON.parse(wrong.text).error.message, /not the metrics token/);
  });

  test('metricsNode serves the same registry on a node:http server', async () => {
    const route = metricsNode(registry);
    const server = http.createServer((req, res) => route(req, res));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/metrics`;
      const answer = await scrape(url);
      assert.equal(answer.status, 200);
      assert.ok(value(answer.samples, 'tombolbayar_plugin_orders_created_total{kind="link"}') >= 2);
      // No token configured: a forwarded request cannot get in at all.
      assert.equal((await scrape(url, { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${TOKEN}` })).status, 403);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('the sweep, counted', () => {
  test('a round that finds a paid order whose notification never came', async () => {
    const registry = new Registry();
    const shop = await startHarness({ options: { metrics: { registry }, sweep: { intervalMs: 100, firstCheckAfterMs: 200, maxCheckIntervalMs: 400 } } });
    try {
      // The sweep asks about orders whose method is known: a VA order.
      const va = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', idempotencyKey: newKey() });
      assert.equal(va.status, 201, JSON.stringify(va.body));
      const order = { orderNum: va.body.orderNum as string, statusToken: va.body.statusToken as string, platOrderNum: await shop.platOrderNumOf(va.body.orderNum) };
      await paidAtGateway(shop, order);
      await waitFor(() => shop.fulfilled.some((paid) => paid.orderNum === order.orderNum), 'the sweep found it paid');
      const text = await registry.metrics();
      const samples = parse(text);
      assert.equal(value(samples, 'tombolbayar_plugin_sweep_found_paid_total'), 1);
      assert.ok(value(samples, 'tombolbayar_plugin_sweep_rounds_total{outcome="ok"}') >= 1);
      assert.equal(value(samples, 'tombolbayar_plugin_confirmations_total{outcome="confirmed",source="sweep"}'), 1);
      assert.equal(value(samples, 'tombolbayar_plugin_order_transitions_total{to="paid",source="reconcile"}'), 1);
    } finally {
      await shop.close();
    }
  });
});

describe('the metrics option', () => {
  const dir = mkdtempSync(join(tmpdir(), 'pb-metrics-'));
  after(() => rmSync(dir, { recursive: true, force: true }));

  test('two plug-ins in one registry share its metrics', async () => {
    const registry = new Registry();
    const first = createPayButton(validOptions(dir, { metrics: { registry }, database: { kind: 'sqlite', file: join(dir, 'a.sqlite') } }));
    const second = createPayButton(validOptions(dir, { metrics: { registry }, database: { kind: 'sqlite', file: join(dir, 'b.sqlite') } }));
    try {
      await Promise.all([first.ready(), second.ready()]);
      const text = await registry.metrics();
      assert.equal(text.match(/^# TYPE tombolbayar_plugin_orders_created_total counter$/gm)?.length, 1);
      assert.match(text, /tombolbayar_plugin_db_pool_connections\{state="idle"\} 2/);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });

  test('a registry that is not one is refused, naming metrics.registry', () => {
    assert.throws(() => createPayButton(validOptions(dir, { metrics: { registry: {} as Registry } })), (error: Error) => /metrics\.registry/.test(error.message));
    assert.throws(() => createPayButton(validOptions(dir, { metrics: {} as { registry: Registry } })), (error: Error) => /metrics\.registry/.test(error.message));
  });
});
