/**
 * The fetch core on its own: `createPayButton(...).fetch(new Request(...))`, no HTTP server on the
 * shop's side, no Express. The gateway is the real one (in-process, sandbox); the shop's
 * `publicUrl` is a loopback port nothing listens on, so the gateway's own notifications go
 * nowhere and the test hands the genuine one to `fetch` itself.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Gateway } from '@tombolbayar/gateway';
import { sign } from '@tombolbayar/protocol/node';
import { createPayButton, NotForSaleError, type PayButtonHandler } from '../src/index.ts';
import { MERCHANT_CODE, merchantKeys, platformKeys, strangerKeys } from './support/keys.ts';
import { testGateway } from './support/sandbox-gateway.ts';

const SHOP = 'http://127.0.0.1:9';
const BASE = `${SHOP}/pay`;
let dir: string;
let gateway: Gateway;
let gatewayUrl: string;
let pay: PayButtonHandler;
const quotedWith: unknown[] = [];

before(async () => {
  dir = mkdtempSync(join(tmpdir(), 'pb-fetch-core-'));
  // Notifications held back: the test delivers the genuine notification itself.
  gateway = testGateway(dir, { notifications: { pollIntervalMs: 60_000, timeoutMs: 1_000 } });
  ({ url: gatewayUrl } = await gateway.listen());
  pay = createPayButton({
    logger: false,
    selfCheck: false,
    sweep: false,
    gatewayUrl,
    merchantCode: MERCHANT_CODE,
    privateKey: merchantKeys().privateKey,
    platformPublicKey: platformKeys().publicKey,
    publicUrl: SHOP,
    database: { kind: 'sqlite', file: join(dir, 'orders.sqlite') },
    rateLimit: { limit: 3, windowMs: 60_000 },
    quote: (request, body) => {
      quotedWith.push(request);
      if (body.item !== 'kopi') throw new NotForSaleError(`${body.item ?? 'Nothing'} is not for sale.`);
      return { payMoney: 150_000, productDetail: 'Kopi Gayo 250g', name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890' };
    },
    onPaid: () => {},
  });
  await pay.ready();
});

after(async () => {
  await pay.close();
  await gateway.close();
  rmSync(dir, { recursive: true, force: true });
});

const json = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  new Request(`${BASE}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', origin: SHOP, ...headers }, body: JSON.stringify(body) });

async function createLink(clientAddress: string) {
  const response = await pay.fetch(json('/links', { item: 'kopi', idempotencyKey: crypto.randomUUID() }), { clientAddress });
  assert.equal(response.status, 201, await response.clone().text());
  return (await response.json()) as { orderNum: string; statusToken: string; url: string };
}

describe('createPayButton().fetch: a Request in, a Response out', () => {
  test('create a link, then read its status with the token header', async () => {
    const link = await createLink('192.0.2.1');
    assert.match(link.url, /^http:\/\/127\.0\.0\.1:\d+\//);
    assert.ok(quotedWith.at(-1) instanceof Request, 'quote() receives the Web Request when no native request is given');
    const status = await pay.fetch(new Request(`${BASE}/orders/${link.orderNum}`, { headers: { 'tombolbayar-status-token': link.statusToken } }));
    assert.equal(status.status, 200);
    assert.equal(status.headers.get('cache-control'), 'no-store');
    assert.equal(status.headers.get('content-type'), 'application/json; charset=utf-8');
    assert.equal(((await status.json()) as { status: string }).status, 'pending');
    const wrong = await pay.fetch(new Request(`${BASE}/orders/${link.orderNum}`, { headers: { 'tombolbayar-status-token': 'x'.repeat(43) } }));
    assert.equal(wrong.status, 404);
  });

  test('refusals: bad body 400 naming the field, not for sale 422, foreign origin 403, unknown path 404, wrong method 405', async () => {
    const bad = await pay.fetch(json('/links', { item: 'kopi' }), { clientAddress: '192.0.2.2' });
    assert.equal(bad.status, 400);
    assert.equal(((await bad.json()) as { error: { issues: Array<{ field: string }> } }).error.issues[0]!.field, 'idempotencyKey');
    const unsold = await pay.fetch(json('/links', { item: 'teh', idempotencyKey: crypto.randomUUID() }), { clientAddress: '192.0.2.2' });
    assert.equal(unsold.status, 422);
    const foreign = await pay.fetch(json('/links', { item: 'kopi', idempotencyKey: crypto.randomUUID() }, { origin: 'https://evil.example' }), { clientAddress: '192.0.2.2' });
    assert.equal(foreign.status, 403);
    assert.equal(((await foreign.json()) as { error: { code: string } }).error.code, 'origin_not_allowed');
    assert.equal(foreign.headers.get('vary'), 'Origin');
    const unknown = await pay.fetch(new Request(`${BASE}/nothing-here`));
    assert.equal(unknown.status, 404);
    const wrongMethod = await pay.fetch(new Request(`${BASE}/links`));
    assert.equal(wrongMethod.status, 405);
    assert.equal(wrongMethod.headers.get('allow'), 'POST');
    const tooLarge = await pay.fetch(json('/links', { item: 'kopi', idempotencyKey: crypto.randomUUID(), pad: 'x'.repeat(20_000) }), { clientAddress: '192.0.2.2' });
    assert.equal(tooLarge.status, 413);
  });

  test('preflight from an allowed origin is 204; the rate limit counts per clientAddress with its headers', async () => {
    const preflight = await pay.fetch(new Request(`${BASE}/links`, { method: 'OPTIONS', headers: { origin: SHOP } }));
    assert.equal(preflight.status, 204);
    for (let index = 0; index < 3; index++) await createLink('198.51.100.7');
    const limited = await pay.fetch(json('/links', { item: 'kopi', idempotencyKey: crypto.randomUUID() }), { clientAddress: '198.51.100.7' });
    assert.equal(limited.status, 429);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.match(limited.headers.get('ratelimit-policy') ?? '', /^"3-in-1min"; q=3; w=60; pk=:/);
    assert.match(limited.headers.get('ratelimit') ?? '', /^"3-in-1min"; r=0; t=\d+$/);
    // Another client, and an IPv6 client in another /56, are not held back by it.
    assert.equal((await pay.fetch(json('/links', { item: 'kopi', idempotencyKey: crypto.randomUUID() }), { clientAddress: '2001:db8:1:100::1' })).status, 201);
  });

  test('a notification signed by a stranger is 401; the genuine one, once paid, is SUCCESS', async () => {
    const link = await createLink('192.0.2.3');
    const gatewayOrder = await gateway.findOrderByOrderNum(MERCHANT_CODE, link.orderNum);
    const fields = { code: '00', msg: 'SUCCESS', status: 'SUCCESS', orderNum: link.orderNum, platOrderNum: gatewayOrder!.platOrderNum, payMoney: '150000', method: 'VA_BCA' };
    const forged = await pay.fetch(new Request(`${BASE}/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...fields, platSign: sign(fields, strangerKeys().privateKey) }),
    }));
    assert.equal(forged.status, 401);
    assert.match(await forged.text(), /^REJECTED bad_signature: /);

    const paid = await fetch(`${gatewayUrl}/sandbox/orders/${encodeURIComponent(gatewayOrder!.platOrderNum)}/pay`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ method: 'VA_BCA' }),
    });
    assert.equal(paid.status, 200);
    const [delivery] = await gateway.deliveries.list({ orderNum: link.orderNum });
    const genuine = await pay.fetch(new Request(`${BASE}/notify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(delivery!.fields as Record<string, string>),
    }));
    assert.equal(genuine.status, 200);
    assert.equal(await genuine.text(), 'SUCCESS');
    assert.equal((await pay.getOrder(link.orderNum))?.status, 'paid');
  });

  test('another mount prefix is served and said once; healthResponse() is a Response', async () => {
    const warnings: string[] = [];
    pay.on('warning', (warning) => warnings.push(warning.code));
    const script = await pay.fetch(new Request(`${SHOP}/shop/pay/return.js`));
    assert.equal(script.status, 200);
    assert.equal(script.headers.get('content-type'), 'text/javascript; charset=utf-8');
    assert.deepEqual(warnings, ['mount_path_mismatch']);
    const health = await pay.healthResponse();
    assert.equal(health.status, 200);
    const readiness = (await health.json()) as { status: string; database: string; load: { state: string } };
    assert.deepEqual([readiness.status, readiness.database, readiness.load.state], ['ready', 'ok', 'ok']);
  });
});
