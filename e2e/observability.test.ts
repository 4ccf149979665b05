/**
 * Operators see everything (issue 34), across two real processes: a sandbox gateway and a
 * merchant's Express shop, each with the OpenTelemetry SDK an operator installs (in-memory
 * exporter) and its metrics served at `/metrics`. Orders are made, refused and paid through
 * both; then each process's spans are read (one trace id from the link request to `onPaid`) and
 * both `/metrics` scraped (each counter moved by the right amount, no order number, e-mail or
 * phone in any label).
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { after, before, describe, test } from 'node:test';
import { readFileSync } from 'node:fs';
import { eventually } from '@tombolbayar/test-support/eventually';
import { parseMetricList } from './operations-docs-support.ts';
import type { SpanView } from './observability/tracing.ts';

const REPO = fileURLToPath(new URL('../', import.meta.url));
const MERCHANT_CODE = 'OBSERV01';
const METRICS_TOKEN = `token-${randomBytes(8).toString('hex')}`;
const SPAN_KIND = { INTERNAL: 0, SERVER: 1, CLIENT: 2 } as const;

interface Started {
  readonly child: ChildProcess;
  readonly url: string;
  readonly spansUrl: string;
}

/** A fixture process, started under the loopback guard; resolves with the JSON line it prints once it listens. */
async function startProcess(script: string, env: Record<string, string>): Promise<Started> {
  const child = spawn(process.execPath, ['--conditions=tombolbayar-internal', '--import', '@tombolbayar/test-support/loopback-guard-preload', '--import', 'tsx', script], {
    cwd: REPO,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errors = '';
  child.stderr!.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  const lines = createInterface({ input: child.stdout! });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`${script} exited (${code}) before listening:\n${errors}`)));
  });
  return { child, ...(JSON.parse(first) as { url: string; spansUrl: string }) };
}

function keyPair(): { privateKey: string; publicKey: string } {
  return generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
}

/** Prometheus text → the value of every series, keyed `name{label="value",...}` as printed. */
function parseMetrics(text: string): Map<string, number> {
  const series = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    series.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return series;
}

/** The sum of the series named `name` whose labels include every one of `labels`. */
function sum(series: Map<string, number>, name: string, labels: Record<string, string> = {}): number {
  let total = 0;
  for (const [key, value] of series) {
    const brace = key.indexOf('{');
    if ((brace < 0 ? key : key.slice(0, brace)) !== name) continue;
    if (Object.entries(labels).every(([label, wanted]) => key.includes(`${label}="${wanted}"`))) total += value;
  }
  return total;
}

let dir: string;
let gateway: Started;
let shop: Started;

async function scrape(url: string, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const response = await fetch(`${url}/metrics`, { headers });
  return { status: response.status, text: await response.text() };
}
const scrapeGateway = () => scrape(gateway.url, { authorization: `Bearer ${METRICS_TOKEN}` });
const scrapeShop = () => scrape(shop.url);

async function spansOf(process: Started): Promise<{ spans: SpanView[]; extra: { paid?: string[] } | null }> {
  return (await fetch(process.spansUrl)).json() as Promise<{ spans: SpanView[]; extra: { paid?: string[] } | null }>;
}

async function createLink(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  const response = await fetch(`${shop.url}/pay/links`, { method: 'POST', headers: { 'content-type': 'application/json', origin: shop.url, ...headers }, body: JSON.stringify(body) });
  return { status: response.status, body: (await response.json()) as Record<string, string> };
}

/** Pays an order at the sandbox gateway, found by the shop's order number. */
async function pay(orderNum: string): Promise<string> {
  const found = (await (await fetch(`${gateway.url}/sandbox/orders?number=${encodeURIComponent(orderNum)}`)).json()) as { orders: Array<{ platOrderNum: string }> };
  const platOrderNum = found.orders[0]!.platOrderNum;
  const paid = await fetch(`${gateway.url}/sandbox/orders/${encodeURIComponent(platOrderNum)}/pay`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'VA_BCA' }) });
  assert.equal(paid.status, 200, await paid.text());
  return platOrderNum;
}

const fulfilled = async (orderNum: string) => eventually(async () => ((await spansOf(shop)).extra?.paid ?? []).includes(orderNum) || undefined, 60_000, `onPaid for ${orderNum}`);

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'tombolbayar-observability-'));
  const merchant = keyPair();
  const platform = keyPair();
  gateway = await startProcess('e2e/observability/gateway-process.ts', {
    E2E_GATEWAY: JSON.stringify({ dataDir: join(dir, 'gateway'), platformPrivateKey: platform.privateKey, merchantPublicKey: merchant.publicKey, merchantCode: MERCHANT_CODE, metricsToken: METRICS_TOKEN }),
  });
  shop = await startProcess('e2e/observability/shop-process.ts', {
    E2E_SHOP: JSON.stringify({ gatewayUrl: gateway.url, file: join(dir, 'shop.sqlite'), privateKey: merchant.privateKey, platformPublicKey: platform.publicKey, merchantCode: MERCHANT_CODE }),
  });
});

after(async () => {
  for (const started of [shop, gateway]) {
    if (!started || started.child.exitCode !== null) continue;
    const exited = new Promise((resolve) => started.child.once('exit', resolve));
    started.child.kill('SIGTERM');
    await exited;
  }
  rmSync(dir, { recursive: true, force: true });
});

describe('operators see everything, across a gateway process and a shop process', () => {
  test('one payment is one trace: the link request, the gateway call, the notification, its confirmation and onPaid', async () => {
    const traceId = randomBytes(16).toString('hex');
    const pageSpanId = randomBytes(8).toString('hex');
    // What <pay-button> sends when the page carries <meta name="traceparent">.
    const created = await createLink({ idempotencyKey: `trace-${traceId}`, item: 'kopi', method: 'VA_BCA' }, { traceparent: `00-${traceId}-${pageSpanId}-01` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    await pay(created.body.orderNum!);
    await fulfilled(created.body.orderNum!);

    const shopSpans = await eventually(async () => {
      const spans = (await spansOf(shop)).spans.filter((span) => span.traceId === traceId);
      return spans.some((span) => span.name.includes('onPaid')) ? spans : undefined;
    }, 30_000, "the shop's onPaid span");
    const gatewaySpans = await eventually(async () => {
      const spans = (await spansOf(gateway)).spans.filter((span) => span.traceId === traceId);
      return spans.some((span) => span.kind === SPAN_KIND.CLIENT && span.name.startsWith('notify')) ? spans : undefined;
    }, 30_000, "the gateway's notification span");

    const linkRequest = shopSpans.find((span) => span.kind === SPAN_KIND.SERVER && span.parentSpanId === pageSpanId);
    assert.ok(linkRequest, `the link request's span is a child of the page's: ${shopSpans.map((span) => span.name).join(', ')}`);
    const shopServers = shopSpans.filter((span) => span.kind === SPAN_KIND.SERVER).length;
    assert.ok(shopServers >= 2, 'the link request and the notification are both requests of this trace');
    assert.ok(shopSpans.filter((span) => span.kind === SPAN_KIND.CLIENT).length >= 2, 'the create and the confirmation query to the gateway');
    assert.ok(gatewaySpans.some((span) => span.kind === SPAN_KIND.SERVER), "the gateway's request span joined the trace");
    for (const span of [...shopSpans, ...gatewaySpans]) {
      const text = JSON.stringify(span.attributes);
      assert.doesNotMatch(text, /budi\.observasi@example\.com|081298765432|Budi Santoso/, `no personal data on ${span.name}`);
    }
  });

  test('both /metrics: each counter moved by the right amount, histograms have samples, no label holds an order number or personal data', async () => {
    const shopBefore = parseMetrics((await scrapeShop()).text);
    const gatewayBefore = parseMetrics((await scrapeGateway()).text);

    const orders: string[] = [];
    for (const item of ['kopi', 'kopi']) {
      const link = await createLink({ idempotencyKey: `metrics-${randomBytes(6).toString('hex')}`, item, method: 'VA_BCA' });
      assert.equal(link.status, 201, JSON.stringify(link.body));
      orders.push(link.body.orderNum!);
    }
    const open = await createLink({ idempotencyKey: `metrics-${randomBytes(6).toString('hex')}`, item: 'teh' });
    assert.equal(open.status, 201, JSON.stringify(open.body));
    orders.push(open.body.orderNum!);
    const refused = await createLink({ item: 'kopi' });
    assert.equal(refused.status, 400, JSON.stringify(refused.body));
    const platOrderNums = [await pay(orders[0]!), await pay(orders[1]!)];
    await fulfilled(orders[0]!);
    await fulfilled(orders[1]!);

    const shopText = (await scrapeShop()).text;
    const gatewayText = (await scrapeGateway()).text;
    const shopAfter = parseMetrics(shopText);
    const gatewayAfter = parseMetrics(gatewayText);
    const moved = (before: Map<string, number>, after: Map<string, number>, name: string, labels: Record<string, string> = {}) => sum(after, name, labels) - sum(before, name, labels);
    const inShop = (name: string, labels?: Record<string, string>) => moved(shopBefore, shopAfter, name, labels);
    const inGateway = (name: string, labels?: Record<string, string>) => moved(gatewayBefore, gatewayAfter, name, labels);

    assert.equal(inShop('tombolbayar_plugin_orders_created_total', { kind: 'link' }), 3);
    assert.equal(inShop('tombolbayar_plugin_orders_refused_total'), 1);
    assert.equal(inShop('tombolbayar_plugin_gateway_calls_total', { operation: 'prepaidOrder', outcome: 'success' }), 3);
    assert.equal(inShop('tombolbayar_plugin_notifications_received_total', { outcome: 'accepted' }), 2);
    assert.equal(inShop('tombolbayar_plugin_order_transitions_total', { to: 'paid' }), 2);
    assert.equal(inShop('tombolbayar_plugin_fulfilment_runs_total', { outcome: 'succeeded' }), 2);
    assert.equal(inShop('tombolbayar_plugin_fulfilment_runs_total', { outcome: 'failed' }), 0);
    assert.ok(inShop('tombolbayar_plugin_gateway_call_duration_seconds_count') >= 5, 'three creates and two confirmation queries timed');
    assert.ok(inShop('tombolbayar_plugin_fulfilment_duration_seconds_count') >= 2);

    assert.equal(inGateway('tombolbayar_gateway_orders_created_total', { endpoint: 'prepaidOrder', method: 'VA_BCA' }), 2);
    assert.equal(inGateway('tombolbayar_gateway_orders_created_total', { endpoint: 'prepaidOrder', method: 'none' }), 1);
    assert.equal(inGateway('tombolbayar_gateway_order_transitions_total', { to: 'paid' }), 2);
    assert.equal(inGateway('tombolbayar_gateway_notifications_enqueued_total', { kind: 'paid' }), 2);
    await eventually(async () => {
      const now = parseMetrics((await scrapeGateway()).text);
      return sum(now, 'tombolbayar_gateway_notification_attempts_total', { outcome: 'delivered' }) - sum(gatewayBefore, 'tombolbayar_gateway_notification_attempts_total', { outcome: 'delivered' }) === 2 || undefined;
    }, 30_000, 'two deliveries counted');
    assert.ok(inGateway('tombolbayar_gateway_http_request_duration_seconds_count') >= 3);
    assert.ok(gatewayAfter.has('tombolbayar_gateway_notification_queue_depth'), 'the queue depth is published');

    for (const [name, text] of [['shop', shopText], ['gateway', gatewayText]] as const) {
      for (const value of [...orders, ...platOrderNums, 'budi.observasi@example.com', '081298765432', 'Budi Santoso']) {
        assert.ok(!text.includes(value), `${name}'s metrics hold ${value}`);
      }
    }
  });

  test('/metrics answers a loopback scraper and a bearer token, never a forwarded request without the token', async () => {
    assert.equal((await scrape(gateway.url)).status, 200, 'loopback, nothing forwarded');
    assert.equal((await scrape(gateway.url, { 'x-forwarded-for': '203.0.113.9' })).status, 403, 'through a proxy on this host');
    assert.equal((await scrape(gateway.url, { 'x-forwarded-for': '203.0.113.9', authorization: `Bearer ${METRICS_TOKEN}` })).status, 200);
    assert.equal((await scrape(gateway.url, { 'x-forwarded-for': '203.0.113.9', authorization: 'Bearer wrong' })).status, 403);
    assert.equal((await scrapeShop()).status, 200);
    assert.equal((await scrape(shop.url, { forwarded: 'for=203.0.113.9' })).status, 403);
  });

  test('docs/operations/metrics.md is what the two processes publish: every name, its type, and the values of each closed label list', async () => {
    const documented = parseMetricList(readFileSync(new URL('../docs/operations/metrics.md', import.meta.url), 'utf8'));
    const published = new Map<string, string>();
    const samples: string[] = [];
    for (const text of [(await scrapeShop()).text, (await scrapeGateway()).text]) {
      for (const line of text.split('\n')) {
        const type = /^# TYPE (tombolbayar_\w+) (\w+)$/.exec(line);
        if (type) published.set(type[1]!, type[2]!);
        else if (line.startsWith('tombolbayar_')) samples.push(line);
      }
    }
    assert.deepEqual([...published.keys()].filter((name) => !documented.has(name)), [], 'published but not documented');
    assert.deepEqual([...documented.keys()].filter((name) => !published.has(name)), [], 'documented but not published');
    for (const [name, info] of documented) assert.equal(published.get(name), info.type, `${name}'s type`);
    for (const sample of samples) {
      const match = /^(\w+?)(_bucket|_sum|_count)?\{(.*)\} /.exec(sample);
      if (!match) continue;
      const info = documented.get(match[1]!) ?? documented.get(`${match[1]}${match[2] ?? ''}`);
      if (!info) continue;
      for (const [, label, value] of match[3]!.matchAll(/(\w+)="([^"]*)"/g)) {
        if (label === 'le') continue;
        const listed = info.labels.get(label!);
        assert.ok(listed, `${info.name} has a label ${label} metrics.md does not name`);
        if (!listed.open) assert.ok(listed.values.has(value!), `${info.name}{${label}="${value}"}: not among the values metrics.md lists`);
      }
    }
  });
});
