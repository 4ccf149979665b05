/**
 * Attacks on the gateway's trust boundaries, beyond what create-refusals.test.ts and
 * delivery-ssrf.test.ts already cover:
 * - every field of every signed request tampered after signing, and the signature itself flipped,
 *   cut, reordered, borrowed from another message or made with the wrong key;
 * - replayed requests;
 * - the SSRF corpus through the create endpoints of a production-mode gateway (the corpus itself
 *   is delivery-ssrf.test.ts's; here it goes through HTTP and the real worker, DNS faked);
 * - production mode: no sandbox route, no simulate button; payment links never built from the
 *   Host header.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import type { LookupAddress } from 'node:dns';
import type { AddressInfo, LookupFunction } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { formatDateTime, sign, type SignableFields } from '@tombolbayar/protocol/node';
import { linkRequest, postJson, signed, vaRequest } from './support/client.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { countRows } from './support/inspect.ts';
import { simulationsFor } from '../src/internal.ts';
import { merchantKeys, platformKeys } from './support/keys.ts';
import { eventually } from './support/receiver.ts';
import { send } from './hostile-support.ts';

type Fields = Record<string, string | null | undefined>;

/** One character of `value` changed (the last one, to another character of the same class). */
function tamper(value: string): string {
  const last = value.at(-1) ?? 'a';
  const replacement = /\d/.test(last) ? String((Number(last) + 1) % 10) : last === 'a' ? 'b' : 'a';
  return `${value.slice(0, -1)}${replacement}`;
}

const SIGNED_REQUESTS: Record<string, (h: Harness) => Fields> = {
  '/gateway/pay': () => vaRequest(MERCHANT_CODE),
  '/gateway/prepaidOrder': () => linkRequest(MERCHANT_CODE, { method: 'BCA' }),
  '/gateway/query': () => ({ merchantCode: MERCHANT_CODE, orderNum: 'ANY-ORDER-1', platOrderNum: 'x'.repeat(24), queryType: 'ORDER_QUERY', dateTime: formatDateTime() }),
};

describe('signatures of merchant requests', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { notifications: { worker: false } });
  });
  after(() => h.stop());

  async function assertRefusedSign(path: string, body: unknown, why: string): Promise<void> {
    const answer = await postJson(`${h.url}${path}`, body);
    assert.equal(answer.body.platRespCode, 'FAIL', `${why}: ${JSON.stringify(answer.body)}`);
    assert.match(answer.body.platRespMessage!, /^sign: /, why);
    assert.ok(h.verifies(answer.body));
  }

  for (const [path, make] of Object.entries(SIGNED_REQUESTS)) {
    test(`${path}: each field changed after signing is refused, nothing stored`, async () => {
      const before = await countRows(h.store, 'orders');
      const fields = make(h);
      const signature = sign(fields as SignableFields, merchantKeys().privateKey);
      for (const [key, value] of Object.entries(fields)) {
        if (typeof value !== 'string' || key === 'merchantCode') continue;
        await assertRefusedSign(path, { ...fields, [key]: tamper(value), sign: signature }, `${key} changed`);
        await assertRefusedSign(path, { ...fields, [key]: undefined, sign: signature }, `${key} removed`);
      }
      await assertRefusedSign(path, { ...fields, injected: 'x', sign: signature }, 'a field added');
      assert.equal(await countRows(h.store, 'orders'), before);
    });

    test(`${path}: a flipped, cut, reordered, borrowed or wrongly keyed signature is refused`, async () => {
      const fields = make(h);
      const good = Buffer.from(sign(fields as SignableFields, merchantKeys().privateKey), 'base64');
      const blocks = good.length / 128;
      for (const position of [0, 63, 127, good.length - 1]) {
        const flipped = Buffer.from(good);
        flipped[position]! ^= 0x01;
        await assertRefusedSign(path, { ...fields, sign: flipped.toString('base64') }, `bit flipped at byte ${position}`);
      }
      if (blocks > 1) {
        await assertRefusedSign(path, { ...fields, sign: good.subarray(0, (blocks - 1) * 128).toString('base64') }, 'last block cut');
        const reordered = Buffer.concat([good.subarray(128, 256), good.subarray(0, 128), good.subarray(256)]);
        await assertRefusedSign(path, { ...fields, sign: reordered.toString('base64') }, 'blocks swapped');
      }
      await assertRefusedSign(path, { ...fields, sign: `${good.toString('base64')}${good.subarray(0, 128).toString('base64')}` }, 'a block appended');
      const other = { ...make(h), dateTime: formatDateTime(new Date(Date.now() - 60_000)) };
      await assertRefusedSign(path, { ...fields, sign: sign(other as SignableFields, merchantKeys().privateKey) }, "another request's signature");
      await assertRefusedSign(path, { ...fields, sign: sign(fields as SignableFields, platformKeys().privateKey) }, 'signed with the platform key');
      const answer = await h.client.createVa();
      await assertRefusedSign(path, { ...fields, sign: answer.body.platSign }, "a gateway answer's platSign");
      // The control: the same signature in URL-safe base64 without padding is the same signature.
      const urlSafe = good.toString('base64').replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
      const accepted = await postJson(`${h.url}${path}`, { ...fields, sign: urlSafe });
      assert.doesNotMatch(accepted.body.platRespMessage!, /^sign: /, 'URL-safe base64 verifies');
    });
  }

  test('a replayed create (the same bytes again, or to the other endpoint) makes no second order', async () => {
    const body = signed(vaRequest(MERCHANT_CODE), merchantKeys().privateKey);
    const first = await postJson(`${h.url}/gateway/pay`, body);
    assert.equal(first.body.platRespCode, 'SUCCESS');
    for (const path of ['/gateway/pay', '/gateway/prepaidOrder', '/gateway/pay']) {
      const replay = await postJson(`${h.url}${path}`, body);
      assert.equal(replay.body.platRespCode, 'FAIL');
      assert.equal(replay.body.platRespMessage, 'orderNum: is already used by another order of this merchant');
    }
    assert.equal(await countRows(h.store, 'orders', { order_num: String(body.orderNum) }), 1);
  });

  test('payment links point to the gateway, whatever Host header the request carries', async () => {
    const fields = linkRequest(MERCHANT_CODE);
    const answer = await send(h.url, '/gateway/prepaidOrder', {
      method: 'POST',
      headers: { 'content-type': 'application/json', host: 'evil.example:8443', 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      body: JSON.stringify(signed(fields, merchantKeys().privateKey)),
    });
    assert.equal(answer.json.platRespCode, 'SUCCESS');
    assert.ok(String(answer.json.url).startsWith(`${h.url}/pay?orderNum=`), answer.json.url);
  });
});

describe('production mode', () => {
  let h: Harness;
  let counter: http.Server;
  let port = 0;
  let connections = 0;
  /**
   * Fake DNS: these names resolve to the gateway's own machine, as an attacker's would. A test
   * resolver names nothing beyond loopback (the harness refuses it: tests never leave the
   * machine); private and metadata answers meet the same connect-time policy in
   * delivery-ssrf.test.ts, without a socket.
   */
  const ZONE: Record<string, string> = { 'loop.example': '127.0.0.1', 'loop-net.example': '127.8.9.10', 'loop-v6.example': '::1' };
  const lookup: LookupFunction = (hostname, _options, callback) => {
    const address = ZONE[hostname];
    if (!address) return callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' }), []);
    callback(null, [{ address, family: address.includes(':') ? 6 : 4 } satisfies LookupAddress]);
  };

  before(async () => {
    counter = http.createServer((_req, res) => res.end('SUCCESS'));
    counter.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    port = (counter.address() as AddressInfo).port;
    h = await startHarness('sqlite', { sandbox: false, notifications: { pollIntervalMs: 20, lookup } });
  });
  after(async () => {
    await h.stop();
    counter.closeAllConnections();
    await new Promise<void>((resolve) => counter.close(() => resolve()));
  });

  const REFUSED_AT_CREATION = [
    'http://shop.example.com/notify',
    'https://127.0.0.1/notify',
    'https://127.1/notify',
    'https://0x7f000001/notify',
    'https://2130706433/notify',
    'https://0/notify',
    'https://[::1]/notify',
    'https://[::ffff:127.0.0.1]/notify',
    'https://169.254.169.254/latest/meta-data/',
    'https://10.0.0.1/notify',
    'https://192.168.1.1/notify',
    'https://[fd00::1]/notify',
    'https://localhost/notify',
    'https://foo.localhost/notify',
    'https://metadata.google.internal/',
    'https://user:pass@shop.example.com/notify',
    'https://shop.example.com@127.0.0.1/notify',
    'javascript:alert(1)',
    'file:///etc/passwd',
  ];

  test('the SSRF corpus through /gateway/pay and /gateway/prepaidOrder: FAIL naming the field, nothing stored', async () => {
    const key = merchantKeys().privateKey;
    for (const url of REFUSED_AT_CREATION) {
      const cases: Array<[string, Fields, string]> = [
        ['/gateway/pay', vaRequest(MERCHANT_CODE, { notifyUrl: url }), 'notifyUrl'],
        ['/gateway/prepaidOrder', linkRequest(MERCHANT_CODE, { notifyUrl: url, redirectUrl: 'https://shop.example.com/back' }), 'notifyUrl'],
        ['/gateway/prepaidOrder', linkRequest(MERCHANT_CODE, { notifyUrl: 'https://shop.example.com/notify', redirectUrl: url }), 'redirectUrl'],
      ];
      for (const [path, fields, field] of cases) {
        const answer = await postJson(`${h.url}${path}`, signed(fields, key));
        assert.equal(answer.body.platRespCode, 'FAIL', `${url} as ${field}: ${JSON.stringify(answer.body)}`);
        assert.match(answer.body.platRespMessage!, new RegExp(`(^|; )${field}: `), url);
        assert.equal(await h.gateway.findOrderByOrderNum(MERCHANT_CODE, fields.orderNum!), undefined);
      }
    }
  });

  test('names that resolve to the loopback pass creation and are refused at connect time, no socket opened', async () => {
    const before = connections;
    for (const host of Object.keys(ZONE)) {
      const created = await postJson(`${h.url}/gateway/pay`, signed(vaRequest(MERCHANT_CODE, { notifyUrl: `https://${host}:${port}/notify` }), merchantKeys().privateKey));
      assert.equal(created.body.platRespCode, 'SUCCESS', created.body.platRespMessage);
      await simulationsFor(h.gateway).pay(created.body.platOrderNum!);
      const delivery = await eventually(async () => {
        const [latest] = await h.gateway.deliveries.list({ platOrderNum: created.body.platOrderNum! });
        return latest && latest.attempts.length > 0 ? latest : undefined;
      }, 10_000, `the first attempt to ${host}`);
      assert.equal(delivery.attempts[0]!.errorClass, 'refused-address', `${host}: ${delivery.attempts[0]!.detail}`);
      assert.equal(delivery.attempts[0]!.httpStatus, null);
    }
    assert.equal(connections, before, 'the loopback server never saw a connection');
  });

  test('no sandbox route and no simulate button exist', async () => {
    const created = await h.client.createLink({ notifyUrl: 'https://shop.example.com/notify', redirectUrl: 'https://shop.example.com/back' });
    const platOrderNum = created.body.platOrderNum!;
    const routes = [
      `/sandbox/orders/${platOrderNum}/pay`, `/sandbox/orders/${platOrderNum}/expire`, `/sandbox/orders/${platOrderNum}/fail`, `/sandbox/orders/${platOrderNum}`,
      '/sandbox/clock', '/sandbox/clock/advance', '/sandbox/deliveries', '/sandbox/deliveries/1/resend', '/sandbox/faults', `/sandbox/faults/${MERCHANT_CODE}`,
      `/sandbox/faults/${MERCHANT_CODE}/orders/X`, '/sandbox', '/sandbox/', '/sandbox/orders?number=X',
      '/sandbox/dashboard', '/sandbox/dashboard/', `/sandbox/dashboard/orders/${platOrderNum}`, `/sandbox/dashboard/orders/${platOrderNum}/pay`,
      '/sandbox/dashboard/pay-number', '/sandbox/dashboard/clock', '/sandbox/dashboard/deliveries/1/resend', `/sandbox/dashboard/merchants/${MERCHANT_CODE}`,
      '/sandbox/dashboard/figures',
    ];
    for (const path of routes) {
      for (const method of ['GET', 'POST', 'PUT', 'DELETE']) {
        const answer = await send(h.url, path, { method, headers: { 'content-type': 'application/json' }, ...(method === 'GET' ? {} : { body: '{"method":"VA_BCA","minutes":99999}' }) });
        assert.equal(answer.status, 404, `${method} ${path}`);
        assert.equal(answer.json.platRespCode, 'NOTEXIST');
      }
    }
    for (const action of ['pay', 'expire', 'fail']) {
      const page = await send(h.url, '/pay/sandbox', { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }, body: `orderNum=${platOrderNum}&action=${action}` });
      assert.equal(page.status, 404, `POST /pay/sandbox ${action}`);
    }
    assert.equal((await h.gateway.findOrder(platOrderNum))!.status, 'PENDING', 'nothing moved the order');
    const page = await send(h.url, `/pay?orderNum=${platOrderNum}`);
    assert.equal(page.status, 200);
    assert.doesNotMatch(page.text, /\/pay\/sandbox|Simulate|Simulasi|SANDBOX/i);
  });
});
