/**
 * Bad input of every kind on every route: a 4xx that names the field (or the body), never a 500,
 * never a crash, nothing stored.
 */
import assert from 'node:assert/strict';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { newKey, startHarness, type Harness } from './support/harness.ts';
import { MERCHANT_CODE } from './support/keys.ts';

let shop: Harness;
before(async () => {
  shop = await startHarness({ options: { fields: { quantity: z.number({ error: 'must be a number' }).int().min(1, { error: 'must be at least 1' }).max(10).optional() } } });
});
after(async () => {
  await shop.close();
});

async function raw(path: string, init: RequestInit & { headers?: Record<string, string> }) {
  const response = await fetch(`${shop.mountUrl}${path}`, { ...init, headers: { origin: shop.merchantUrl, ...init.headers } });
  const text = await response.text();
  let body: any = text;
  try {
    body = JSON.parse(text);
  } catch {
    // text
  }
  return { status: response.status, body, headers: response.headers };
}

function issuesOf(answer: { body: any }): Array<{ field: string; message: string }> {
  return answer.body.error.issues;
}

describe('POST /links', () => {
  const cases: Array<[string, unknown, number, string, RegExp]> = [
    ['a missing idempotencyKey', { item: 'kopi' }, 400, 'idempotencyKey', /is required: a random key per checkout attempt/],
    ['a short idempotencyKey', { item: 'kopi', idempotencyKey: 'abc' }, 400, 'idempotencyKey', /16 to 128 letters/],
    ['an idempotencyKey with spaces', { item: 'kopi', idempotencyKey: 'a key with spaces in it' }, 400, 'idempotencyKey', /16 to 128 letters/],
    ['an item that is a number', { item: 42, idempotencyKey: newKey() }, 400, 'item', /must be a string/],
    ['an item too long', { item: 'x'.repeat(200), idempotencyKey: newKey() }, 400, 'item', /at most 128 characters/],
    ['an unknown method', { item: 'kopi', method: 'BITCOIN', idempotencyKey: newKey() }, 400, 'method', /must be null or one of VA_BCA/],
    ['a price from the browser', { item: 'kopi', payMoney: 1, idempotencyKey: newKey() }, 400, 'payMoney', /is not allowed/],
    ['a merchant field with a bad value', { item: 'kopi', quantity: 0, idempotencyKey: newKey() }, 400, 'quantity', /must be at least 1/],
    ['a returnTo on another site', { item: 'kopi', returnTo: 'https://evil.example/x', idempotencyKey: newKey() }, 400, 'returnTo', /same origin/],
    ['a returnTo that is not a URL', { item: 'kopi', returnTo: 'javascript:alert(1)', idempotencyKey: newKey() }, 400, 'returnTo', /absolute URL/],
    ['an array instead of an object', [1, 2], 400, 'body', /must be a JSON object/],
    ['a JSON string', '"hello"', 400, 'body', /must be a JSON object/],
    ['null', null, 400, 'body', /must be a JSON object/],
  ];
  for (const [name, body, status, field, message] of cases) {
    test(`${name} -> ${status} naming ${field}`, async () => {
      const answer = await shop.post('/links', body);
      assert.equal(answer.status, status, JSON.stringify(answer.body));
      assert.equal(answer.body.error.code, 'invalid_request');
      const issue = issuesOf(answer).find((candidate) => candidate.field === field);
      assert.ok(issue, `no issue on ${field}: ${JSON.stringify(answer.body)}`);
      assert.match(issue.message, message);
    });
  }

  test('several problems at once are all named', async () => {
    const answer = await shop.post('/links', { item: 7, method: 'X', extra: true });
    assert.deepEqual(issuesOf(answer).map((issue) => issue.field).sort(), ['extra', 'idempotencyKey', 'item', 'method']);
  });

  test('broken JSON, an empty body, another content type, a compressed body, a huge body', async () => {
    const broken = await raw('/links', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"item":' });
    assert.deepEqual([broken.status, issuesOf(broken)], [400, [{ field: 'body', message: 'is not valid JSON' }]]);
    const empty = await raw('/links', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '' });
    assert.deepEqual([empty.status, issuesOf(empty)[0]!.field], [400, 'body']);
    const form = await raw('/links', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'item=kopi' });
    assert.deepEqual([form.status, form.body.error.code], [415, 'unsupported_media_type']);
    assert.match(form.body.error.message, /Content-Type: application\/json/);
    const none = await raw('/links', { method: 'POST', body: 'item=kopi' });
    assert.equal(none.status, 415);
    const gzip = await raw('/links', { method: 'POST', headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' }, body: gzipSync('{"item":"kopi"}') });
    assert.equal(gzip.status, 415);
    const huge = await shop.post('/links', { item: 'kopi', idempotencyKey: newKey(), filler: 'x'.repeat(20_000) });
    assert.deepEqual([huge.status, huge.body.error.code], [413, 'payload_too_large']);
  });

  test('a declared merchant field reaches quote(); nothing was stored for the refused requests', async () => {
    const before = shop.eventsNamed('order.transition').length;
    const ok = await shop.post('/links', { item: 'kopi', quantity: 2, idempotencyKey: newKey() });
    assert.equal(ok.status, 201);
    const stored = shop.eventsNamed('order.transition').slice(before).filter((event) => event.from === null);
    assert.equal(stored.length, 1, 'only the valid request stored an order');
  });

  test('another method on /links is a 405 with Allow', async () => {
    const answer = await raw('/links', { method: 'GET' });
    assert.deepEqual([answer.status, answer.headers.get('allow')], [405, 'POST']);
  });
});

describe('POST /va', () => {
  test('a missing method is named', async () => {
    const answer = await shop.post('/va', { item: 'kopi', idempotencyKey: newKey() });
    assert.equal(answer.status, 400);
    assert.match(issuesOf(answer).find((issue) => issue.field === 'method')!.message, /is required: one of VA_BCA/);
  });
  test('a wrong method is named', async () => {
    const answer = await shop.post('/va', { item: 'kopi', method: 'VA_XYZ', idempotencyKey: newKey() });
    assert.equal(issuesOf(answer)[0]!.field, 'method');
    assert.match(issuesOf(answer)[0]!.message, /^must be one of VA_BCA, .*QRIS.* \(or the code without its prefix, e\.g\. BCA\)$/);
    const notAString = await shop.post('/va', { item: 'kopi', method: 7, idempotencyKey: newKey() });
    assert.deepEqual(issuesOf(notAString), [{ field: 'method', message: 'must be a string' }]);
  });
  test('an alias is accepted and normalised to the code', async () => {
    const answer = await shop.post('/va', { item: 'teh', method: 'BCA', idempotencyKey: newKey() });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.equal(answer.body.method, 'VA_BCA');
  });
  test('a returnTo is not a /va field', async () => {
    const answer = await shop.post('/va', { item: 'kopi', method: 'VA_BCA', returnTo: `${shop.merchantUrl}/`, idempotencyKey: newKey() });
    assert.deepEqual(issuesOf(answer), [{ field: 'returnTo', message: 'is not allowed' }]);
  });
});

describe('GET /orders/:orderNum', () => {
  let orderNum: string;
  let token: string;
  before(async () => {
    const created = await shop.createLink({ item: 'teh' });
    orderNum = created.body.orderNum;
    token = created.body.statusToken;
  });

  test('the right token reads the order', async () => {
    assert.equal((await shop.status(orderNum, token)).status, 200);
  });
  test('a wrong, missing or malformed token, or an unknown order: the same 404, no-store', async () => {
    const wrong = await shop.status(orderNum, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`);
    const missing = await shop.get(`/orders/${orderNum}`);
    const malformed = await shop.status(orderNum, 'short');
    const unknown = await shop.status('PBUNKNOWN000000000', token);
    const tooLong = await shop.status('X'.repeat(200), token);
    for (const answer of [wrong, missing, malformed, unknown, tooLong]) {
      assert.equal(answer.status, 404);
      assert.deepEqual(answer.body, { error: { code: 'not_found', message: 'No order with this number and token.', retryable: false } });
      assert.equal(answer.headers.get('cache-control'), 'no-store');
    }
  });
  test('the token is read from its header only: in the query string it opens nothing', async () => {
    const inQuery = await shop.get(`/orders/${orderNum}?token=${token}`);
    assert.equal(inQuery.status, 404);
    assert.equal((await shop.get(`/orders/${orderNum}`, { 'Tombolbayar-Status-Token': token })).status, 200);
  });
  test('POST is a 405', async () => {
    assert.equal((await raw(`/orders/${orderNum}`, { method: 'POST' })).status, 405);
  });
});

describe('POST /notify', () => {
  test('another content type: 415', async () => {
    const answer = await raw('/notify', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: '<x/>' });
    assert.equal(answer.status, 415);
    assert.match(answer.body, /^REJECTED unreadable_body: content type application\/xml is not a notification/);
  });
  test('garbage, an empty body, a field twice: refused before anything is looked up', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    assert.equal((await raw('/notify', { method: 'POST', headers: form, body: '%%%garbage' })).status, 401);
    assert.equal((await raw('/notify', { method: 'POST', headers: form, body: '' })).status, 401);
    const twice = await raw('/notify', { method: 'POST', headers: form, body: 'orderNum=a&orderNum=b' });
    assert.equal(twice.status, 400);
    assert.match(twice.body, /field orderNum appears more than once/);
    const json = await raw('/notify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":{"b":1}}' });
    assert.equal(json.status, 400);
    assert.match(json.body, /field a is not a string/);
  });
  test('a body over the limit: 413', async () => {
    const answer = await raw('/notify', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `a=${'x'.repeat(20_000)}` });
    assert.equal(answer.status, 413);
  });
  test('GET is a 405', async () => {
    assert.equal((await raw('/notify', { method: 'GET' })).status, 405);
  });
});

describe('GET /return', () => {
  test('an unknown or missing order: a 404 page', async () => {
    assert.equal((await shop.get('/return')).status, 404);
    assert.equal((await shop.get('/return?order=PBNOPE000000000000')).status, 404);
    assert.equal((await shop.get('/return?order[]=x')).status, 404);
    assert.equal((await shop.get('/return/continue?order=%00')).status, 404);
  });
});

describe('the mount path comes from configuration', () => {
  const quote = { payMoney: 1000, productDetail: 'x', name: 'y', email: 'a@b.co', phone: '0812345' };

  test('createPaymentLink() before any request signs URLs under mountPath', async () => {
    const fresh = await startHarness({ mount: '/shop-pay' });
    try {
      // No request has reached this router yet: the URLs come from publicUrl + mountPath alone.
      const link = await fresh.router.createPaymentLink({ quote });
      const order = await fresh.gateway.findOrderByOrderNum(MERCHANT_CODE, link.orderNum);
      assert.equal(order!.notifyUrl, `${fresh.merchantUrl}/shop-pay/notify`);
      assert.equal(new URL(order!.redirectUrl!).pathname, '/shop-pay/return');
    } finally {
      await fresh.close();
    }
  });

  test('without mountPath it is /pay, and a router reached elsewhere warns once, naming the fix', async () => {
    const fresh = await startHarness({ mount: '/checkout', options: { mountPath: undefined } });
    try {
      const link = await fresh.router.createPaymentLink({ quote });
      const order = await fresh.gateway.findOrderByOrderNum(MERCHANT_CODE, link.orderNum);
      assert.equal(order!.notifyUrl, `${fresh.merchantUrl}/pay/notify`);
      await fresh.createLink({ item: 'kopi' });
      await fresh.createLink({ item: 'kopi' });
      const warnings = fresh.eventsNamed('warning').filter((warning) => warning.code === 'mount_path_mismatch');
      assert.equal(warnings.length, 1);
      assert.match(warnings[0]!.message, /reached at \/checkout.*pass mountPath: '\/checkout'/);
    } finally {
      await fresh.close();
    }
  });
});
