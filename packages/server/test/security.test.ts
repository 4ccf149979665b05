/**
 * Edge security: same-origin check (with CORS for allowed origins), per-IP rate limits behind a
 * proxy, and no secret anywhere a client or a log could see it.
 */
import assert from 'node:assert/strict';
import { inspect } from 'node:util';
import { afterEach, describe, test } from 'node:test';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { newKey, startHarness, waitFor, type Harness } from './support/harness.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

describe('same-origin check on browser routes', () => {
  test('another site cannot create orders or read a status', async () => {
    shop = await startHarness();
    const created = await shop.createLink({ item: 'kopi' });
    const evil = { origin: 'https://evil.example' };
    const links = await shop.createLink({ item: 'kopi' }, evil);
    assert.deepEqual([links.status, links.body.error.code], [403, 'origin_not_allowed']);
    const va = await shop.post('/va', { item: 'kopi', method: 'VA_BCA', idempotencyKey: newKey() }, evil);
    assert.equal(va.status, 403);
    const status = await shop.get(`/orders/${created.body.orderNum}`, { ...evil, 'Tombolbayar-Status-Token': created.body.statusToken });
    assert.equal(status.status, 403);
    // The refused page may read the refusal (so the element tells the truth), and nothing else.
    assert.equal(links.headers.get('access-control-allow-origin'), evil.origin);
    assert.equal(links.headers.get('access-control-expose-headers'), null);
    assert.equal(links.headers.get('access-control-allow-credentials'), null);
    assert.deepEqual(Object.keys(links.body), ['error']);
    assert.doesNotMatch(JSON.stringify(links.body), /127\.0\.0\.1/, 'the allowed origins are for the log, not for the refused page');
    const opaque = await shop.createLink({ item: 'kopi' }, { origin: 'null' });
    assert.equal(opaque.status, 403);
    assert.equal(opaque.headers.get('access-control-allow-origin'), null, 'no CORS for an opaque origin');
  });

  test('a cross-site request without Origin is refused by Sec-Fetch-Site; same-origin GETs pass', async () => {
    shop = await startHarness();
    const created = await shop.createLink({ item: 'kopi' });
    const path = `/orders/${created.body.orderNum}`;
    const token = { 'Tombolbayar-Status-Token': created.body.statusToken };
    assert.equal((await shop.get(path, { ...token, 'sec-fetch-site': 'cross-site' })).status, 403);
    assert.equal((await shop.get(path, { ...token, 'sec-fetch-site': 'same-origin' })).status, 200);
    assert.equal((await shop.get(path, token)).status, 200, 'a non-browser client');
  });

  test('an allowed origin gets CORS answers, including the preflight', async () => {
    shop = await startHarness({ options: { allowedOrigins: ['https://checkout.shop.example'] } });
    const origin = 'https://checkout.shop.example';
    const preflight = await fetch(`${shop.mountUrl}/links`, {
      method: 'OPTIONS',
      headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
    });
    assert.equal(preflight.status, 204);
    assert.equal(preflight.headers.get('access-control-allow-origin'), origin);
    assert.match(preflight.headers.get('access-control-allow-headers') ?? '', /Content-Type/i);
    assert.match(preflight.headers.get('vary') ?? '', /Origin/);
    const created = await shop.createLink({ item: 'kopi', returnTo: `${origin}/cart` }, { origin });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('access-control-allow-origin'), origin);
    // Another site's preflight is answered, never cached, so its request reaches the refusal it may read.
    const evil = 'https://evil.example';
    const refused = await fetch(`${shop.mountUrl}/links`, { method: 'OPTIONS', headers: { origin: evil, 'access-control-request-method': 'POST' } });
    assert.equal(refused.status, 204);
    assert.equal(refused.headers.get('access-control-allow-origin'), evil);
    assert.equal(refused.headers.get('access-control-max-age'), null);
    const stored = shop.eventsNamed('order.transition').length;
    const sent = await shop.createLink({ item: 'kopi' }, { origin: evil });
    assert.deepEqual([sent.status, sent.body.error.code], [403, 'origin_not_allowed']);
    assert.equal(shop.eventsNamed('order.transition').length, stored, 'no order stored for the refused origin');
  });
});

describe('rate limits on order creation', () => {
  test('per client: the limit answers 429 with Retry-After, other clients unaffected (trust proxy honoured)', async () => {
    shop = await startHarness({ options: { rateLimit: { limit: 2, windowMs: 60_000 } }, configureApp: (app) => app.set('trust proxy', 1) });
    const alice = { 'x-forwarded-for': '203.0.113.10' };
    const bob = { 'x-forwarded-for': '198.51.100.20' };
    assert.equal((await shop.createLink({ item: 'kopi' }, alice)).status, 201);
    assert.equal((await shop.post('/va', { item: 'kopi', method: 'VA_BCA', idempotencyKey: newKey() }, alice)).status, 201);
    const limited = await shop.createLink({ item: 'kopi' }, alice);
    assert.equal(limited.status, 429);
    assert.deepEqual([limited.body.error.code, limited.body.error.retryable], ['rate_limited', true]);
    assert.ok(Number(limited.headers.get('retry-after')) > 0);
    assert.ok(limited.headers.get('ratelimit-policy'));
    assert.equal((await shop.createLink({ item: 'kopi' }, bob)).status, 201, 'another client has its own bucket');
    const created = await shop.createLink({ item: 'teh' }, bob);
    assert.equal((await shop.status(created.body.orderNum, created.body.statusToken)).status, 200, 'status polls are not limited');
  });

  test('sized for a carrier NAT: by default many customers on one address all get their payment link', async () => {
    shop = await startHarness({});
    // Twenty-five checkouts from one address within the minute: the old default (20) refused the last five.
    for (let i = 0; i < 25; i++) assert.equal((await shop.createLink({ item: 'kopi' })).status, 201, `checkout ${i + 1}`);
  });

  test('keyed by the merchant\'s session when `key` names one: customers behind one address get their own buckets', async () => {
    shop = await startHarness({ options: { rateLimit: { limit: 1, windowMs: 60_000, key: (req) => req.get('x-session') } } });
    assert.equal((await shop.createLink({ item: 'kopi' }, { 'x-session': 'ani' })).status, 201);
    assert.equal((await shop.createLink({ item: 'kopi' }, { 'x-session': 'budi' })).status, 201, 'another session on the same address');
    assert.equal((await shop.createLink({ item: 'kopi' }, { 'x-session': 'ani' })).status, 429, 'the same session again');
    // No session: the address's own bucket, which no session's key can share.
    assert.equal((await shop.createLink({ item: 'kopi' })).status, 201);
    assert.equal((await shop.createLink({ item: 'kopi' })).status, 429);
  });
});

describe('no secret in any response, event or error', () => {
  test('a whole run, including failures, never shows the private key or a signature', async () => {
    shop = await startHarness({ onPaidFailures: 1 });
    const texts: string[] = [];
    const created = await shop.createLink({ item: 'kopi' });
    texts.push(JSON.stringify(created.body));
    texts.push(JSON.stringify((await shop.createLink({ item: 'nothing' })).body));
    texts.push(JSON.stringify((await shop.post('/links', { privateKey: merchantKeys().privateKey })).body));
    texts.push(JSON.stringify((await shop.createLink({ item: 'kopi' }, { origin: 'https://evil.example' })).body));
    await shop.payAtGateway(created.body.orderNum);
    await waitFor(() => shop!.fulfilled.length === 1, 'onPaid');
    texts.push(JSON.stringify((await shop.status(created.body.orderNum, created.body.statusToken)).body));
    const forged = await fetch(`${shop.mountUrl}/notify`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'orderNum=x&platSign=abc' });
    texts.push(await forged.text());
    texts.push(inspect(shop.events, { depth: 10 }));

    const everything = texts.join('\n');
    const keyBody = merchantKeys().privateKey.split('\n').filter((line) => line && !line.startsWith('-----'));
    for (const line of keyBody) assert.ok(!everything.includes(line), 'a line of the private key leaked');
    assert.ok(!everything.includes('PRIVATE KEY'));
    // No signature either: every sign/platSign is base64 of at least 128 bytes (172+ characters).
    assert.doesNotMatch(everything, /[A-Za-z0-9+/]{100,}/);
    assert.ok(!everything.includes(platformKeys().privateKey.split('\n')[1]!));
  });
});
