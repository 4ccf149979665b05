/**
 * Attacks on the plug-in's trust boundaries, beyond security.test.ts, notify.test.ts and
 * validation.test.ts:
 * - the price from the browser under every name and hiding place: refused by name or ignored,
 *   the gateway always gets the catalogue's amount;
 * - gateway answers tampered on the way (a proxy that edits the JSON): never trusted;
 * - notifications re-split at a field boundary (the family's signature concatenates values with no
 *   separator, so moving characters between neighbouring fields keeps it valid): refused by the
 *   checks against the stored order;
 * - origins that look like ours, and a rate limit that a spoofed X-Forwarded-For cannot reset.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, test } from 'node:test';
import { sign, verify } from '@tombolbayar/protocol/node';
import { MERCHANT_CODE, platformKeys } from './support/keys.ts';
import { CATALOGUE, send, startShop, type HostileShop, type RawAnswer } from './hostile-support.ts';

let shop: HostileShop | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

const call = (path: string, options: Parameters<typeof send>[2] = {}) => send(shop!.merchantUrl, `/pay${path}`, options);
let sequence = 0;
const key = () => `security-${process.pid}-${(sequence += 1).toString().padStart(6, '0')}`;
const post = (path: string, body: unknown, headers: Record<string, string> = {}) =>
  call(path, { method: 'POST', headers: { 'content-type': 'application/json', origin: shop!.merchantUrl, ...headers }, body: typeof body === 'string' ? body : JSON.stringify(body) });

describe('the price never comes from the browser', () => {
  const NAMES = ['payMoney', 'amount', 'price', 'total', 'payFee', 'fee', 'discount', 'Amount', 'PAYMONEY', 'pay_money', 'payMoney ', 'quote'];

  test('a price field under any name, on /links and /va, is refused by name and stores nothing', async () => {
    shop = await startShop();
    const before = `${await shop.shopProbe.version()}/${await shop.gatewayProbe.version()}`;
    for (const path of ['/links', '/va']) {
      for (const name of NAMES) {
        for (const value of [1, '1', 0, -150000, '150000', { value: 1 }]) {
          const answer = await post(path, { idempotencyKey: key(), item: 'kopi', method: 'VA_BCA', [name]: value });
          assert.equal(answer.status, 400, `${path} ${name}`);
          assert.ok(answer.json.error.issues.some((issue: { field: string }) => issue.field === name), `${name} is named: ${answer.text}`);
        }
      }
      // Hidden in the prototype-pollution keys.
      for (const text of [
        `{"idempotencyKey":"${key()}","item":"kopi","method":"VA_BCA","__proto__":{"payMoney":"1"}}`,
        `{"idempotencyKey":"${key()}","item":"kopi","method":"VA_BCA","constructor":{"prototype":{"payMoney":"1"}}}`,
      ]) {
        const answer = await post(path, text);
        assert.equal(answer.status, 400);
        assert.match(answer.json.error.issues[0].field, /^(__proto__|constructor)$/);
      }
    }
    assert.equal(`${await shop.shopProbe.version()}/${await shop.gatewayProbe.version()}`, before);
    assert.equal(({} as Record<string, unknown>).payMoney, undefined, 'nothing was polluted');
  });

  test('a price in the query string or a header is ignored: the gateway gets the catalogue amount', async () => {
    shop = await startShop();
    const answer = await call('/links?payMoney=1&amount=1&price=1', {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: shop.merchantUrl, 'x-pay-money': '1', 'x-amount': '1', amount: '1' },
      body: JSON.stringify({ idempotencyKey: key(), item: 'kopi' }),
    });
    assert.equal(answer.status, 201, answer.text);
    const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, answer.json.orderNum);
    assert.equal(order!.payMoney, CATALOGUE.kopi);
  });
});

/** A proxy in front of the gateway that edits every JSON answer of `path` with `edit`. */
async function tamperingProxy(target: string, path: string, edit: (body: Record<string, string>) => Record<string, string>) {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', async () => {
      const upstream = await fetch(`${target}${req.url}`, { method: req.method, headers: { 'content-type': String(req.headers['content-type'] ?? '') }, body: chunks.length ? Buffer.concat(chunks) : undefined });
      let text = await upstream.text();
      if (req.url === path) text = JSON.stringify(edit(JSON.parse(text) as Record<string, string>));
      res.writeHead(upstream.status, { 'content-type': 'application/json' }).end(text);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}

describe('gateway answers tampered on the way are never trusted', () => {
  const EDITS: Record<string, (body: Record<string, string>) => Record<string, string>> = {
    'a smaller payMoney': (body) => ({ ...body, payMoney: '1000' }),
    'the payment url on another site': (body) => ({ ...body, url: 'https://evil.example/pay?orderNum=x' }),
    'another order': (body) => ({ ...body, orderNum: 'PBOTHERORDER000001' }),
    'no platSign': ({ platSign: _dropped, ...body }) => body,
    'a platSign over other fields': (body) => ({ ...body, platSign: sign({ ...body, platSign: undefined, payMoney: '1000' }, platformKeys().privateKey) }),
    'an extra field': (body) => ({ ...body, redirect: 'https://evil.example/' }),
  };

  for (const [name, edit] of Object.entries(EDITS)) {
    test(`a create answer with ${name}: 502, no payment url reaches the browser, nothing paid`, async () => {
      shop = await startShop({ options: { maxRetries: 0 }, proxy: (gatewayUrl) => tamperingProxy(gatewayUrl, '/gateway/prepaidOrder', edit) });
      const answer = await post('/links', { idempotencyKey: key(), item: 'kopi' });
      assert.equal(answer.status, 502, answer.text);
      assert.match(answer.json.error.code, /^gateway_(response_invalid|url_untrusted)$/);
      assert.doesNotMatch(answer.text, /evil\.example|\/pay\?orderNum=/, 'no payment url in the answer');
      assert.equal(shop.onPaidCalls.length, 0);
    });
  }

  test('a query answer claiming PAID with a broken signature changes nothing on a status poll', async () => {
    shop = await startShop({
      options: { statusRefreshMs: 0 },
      proxy: (gatewayUrl) => tamperingProxy(gatewayUrl, '/gateway/query', (body) => ({ ...body, status: 'PAID', paidTime: '20260101120000' })),
    });
    const created = await post('/links', { idempotencyKey: key(), item: 'kopi' });
    assert.equal(created.status, 201);
    for (let i = 0; i < 3; i++) {
      const poll = await call(`/orders/${created.json.orderNum}`, { headers: { origin: shop.merchantUrl, 'Tombolbayar-Status-Token': created.json.statusToken } });
      assert.equal(poll.json.status, 'pending');
    }
    assert.equal((await shop.router.getOrder(created.json.orderNum))?.status, 'pending');
    assert.equal(shop.onPaidCalls.length, 0);
  });
});

describe('notifications re-split at a field boundary', () => {
  /** The fields of the gateway's own PAID notification for a new order, paid at the gateway. */
  async function genuinePaid(): Promise<{ fields: Record<string, string>; orderNum: string }> {
    await fetch(`${shop!.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ notifications: { drop: true } }) });
    const created = await post('/links', { idempotencyKey: key(), item: 'kopi', method: 'VA_BCA' });
    const order = await shop!.gateway.findOrderByOrderNum(MERCHANT_CODE, created.json.orderNum);
    await shop!.gateway.pay(order!.platOrderNum);
    const [delivery] = await shop!.gateway.deliveries.list({ orderNum: created.json.orderNum });
    return { fields: { ...(delivery!.fields as Record<string, string>) }, orderNum: created.json.orderNum };
  }

  const notify = (fields: Record<string, string>) =>
    call('/notify', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() });

  test('moving digits from payMoney into payFee keeps the signature valid and is refused as an amount mismatch', async () => {
    shop = await startShop();
    const { fields, orderNum } = await genuinePaid();
    // payFee and payMoney are neighbours in key order: "4000" + "150000" == "40001" + "50000".
    const resplit: Record<string, string> = { ...fields, payFee: `${fields.payFee}${fields.payMoney!.slice(0, 1)}`, payMoney: fields.payMoney!.slice(1) };
    const { platSign, ...signedFields } = resplit;
    assert.ok(verify(signedFields, platSign, platformKeys().publicKey), 'the family signature cannot tell (a protocol limitation, see SECURITY.md)');
    const answer = await notify(resplit);
    assert.equal(answer.status, 409);
    assert.match(answer.text, /^REJECTED not_matched: /);
    assert.equal((shop.events.filter((event) => event.name === 'notification.rejected').at(-1)?.payload as { reason?: string } | undefined)?.reason, 'amount_mismatch');
    assert.equal((await shop.router.getOrder(orderNum))?.status, 'pending');
    assert.equal(shop.onPaidCalls.length, 0);
    const genuine = await notify(fields);
    assert.equal(genuine.text, 'SUCCESS', 'the genuine one still works');
    assert.deepEqual(shop.onPaidCalls, [orderNum]);
  });

  test('moving the end of orderNum into payFee (another order number) is refused and pays nothing', async () => {
    shop = await startShop();
    const { fields } = await genuinePaid();
    // orderNum and payFee are neighbours in key order: "PB…K" + "4000" == "PB…" + "K4000".
    const resplit: Record<string, string> = { ...fields, orderNum: fields.orderNum!.slice(0, -1), payFee: `${fields.orderNum!.slice(-1)}${fields.payFee}` };
    const { platSign, ...signedFields } = resplit;
    assert.ok(verify(signedFields, platSign, platformKeys().publicKey), 'the signature still verifies');
    const answer = await notify(resplit);
    assert.ok([400, 409].includes(answer.status), `${answer.status} ${answer.text}`);
    assert.match(answer.text, /^REJECTED (invalid_fields|not_matched): /);
    assert.equal(shop.onPaidCalls.length, 0);
  });

  test('a genuine notification replayed against another order of the same shop is refused', async () => {
    shop = await startShop();
    const first = await genuinePaid();
    const second = await genuinePaid();
    const swapped = { ...first.fields, orderNum: second.orderNum };
    const answer = await notify(swapped);
    assert.equal(answer.status, 401, 'the signature covers orderNum');
    assert.equal(shop.onPaidCalls.length, 0);
  });
});

describe('origins and rate limits on the browser routes', () => {
  test('origins that only look like ours are refused', async () => {
    shop = await startShop();
    const own = new URL(shop.merchantUrl);
    const lookalikes = [
      `${shop.merchantUrl}/`, `${shop.merchantUrl}.evil.example`, `https://${own.host}`, `http://${own.hostname}:${Number(own.port) + 1}`,
      `http://localhost:${own.port}`, `http://evil.example`, 'null', `http://${own.host}@evil.example`,
    ];
    for (const origin of lookalikes) {
      const links = await post('/links', { idempotencyKey: key(), item: 'kopi' }, { origin });
      assert.equal(links.status, 403, `Origin: ${origin}`);
      // A refused page may read its refusal (a serialized origin only), nothing more.
      assert.ok([undefined, origin].includes(links.headers['access-control-allow-origin'] as string | undefined), `Origin: ${origin}`);
      if (!URL.canParse(origin) || new URL(origin).origin !== origin) assert.equal(links.headers['access-control-allow-origin'], undefined, `Origin: ${origin}`);
      assert.equal(links.headers['access-control-expose-headers'], undefined);
    }
    assert.equal((await post('/links', { idempotencyKey: key(), item: 'kopi' }, { origin: shop.merchantUrl })).status, 201, 'the real origin passes');
    // A form post from another site (the classic CSRF shape) is refused too.
    const form = await call('/links', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'cross-site' }, body: 'item=kopi' });
    assert.equal(form.status, 403);
  });

  test('a spoofed X-Forwarded-For does not reset the limit when the app trusts no proxy; refused requests count too', async () => {
    shop = await startShop({ options: { rateLimit: { limit: 5, windowMs: 60_000 } } });
    const answers: RawAnswer[] = [];
    for (let i = 0; i < 8; i++) {
      const body = i % 2 ? { idempotencyKey: key(), item: 'kopi' } : { idempotencyKey: 'short', item: 'kopi' };
      answers.push(await post(i % 3 ? '/links' : '/va', { ...body, ...(i % 3 ? {} : { method: 'QRIS' }) }, { 'x-forwarded-for': `203.0.113.${i}` }));
    }
    assert.deepEqual(answers.map((answer) => answer.status === 429), [false, false, false, false, false, true, true, true]);
    assert.ok(Number(answers[7]!.headers['retry-after']) > 0);
    assert.equal(answers[7]!.json.error.code, 'rate_limited');
  });
});
