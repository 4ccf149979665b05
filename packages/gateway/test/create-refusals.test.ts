/**
 * Every way a merchant request is refused: NOTEXIST for unknown merchants and orders, FAIL naming
 * the field and its rule for everything else. Each refusal is HTTP 200, signed, and stores nothing.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { formatDateTime, sign } from '@tombolbayar/protocol/node';
import { postJson, signed, uniqueOrderNum, vaRequest, linkRequest } from './support/client.ts';
import { ENGINES } from './support/engines.ts';
import { startHarness, MERCHANT_CODE, type Harness } from './support/harness.ts';
import { merchantKeys } from './support/keys.ts';

type Fields = Record<string, string | null | undefined>;

/** Field, bad value, and the rule's words expected in platRespMessage. */
const BAD_FIELDS: readonly [string, string | undefined, RegExp][] = [
  ['method', undefined, /is required|must be one of/],
  ['method', 'VA_UNKNOWN', /must be one of VA_BCA/],
  ['method', 'bca', /must be one of/], // aliases (BCA) are accepted, matched exactly
  ['orderNum', undefined, /is required/],
  ['orderNum', 'has space', /printable ASCII/],
  ['orderNum', 'x'.repeat(65), /at most 64/],
  ['payMoney', undefined, /is required/],
  ['payMoney', '0', /positive whole number/],
  ['payMoney', '-5000', /positive whole number/],
  ['payMoney', '15000.50', /positive whole number/],
  ['payMoney', '015000', /positive whole number/],
  ['productDetail', undefined, /is required/],
  ['productDetail', 'p'.repeat(33), /at most 32/],
  ['name', undefined, /is required/],
  ['name', 'n'.repeat(33), /at most 32/],
  ['email', undefined, /is required|e-mail/],
  ['email', 'not-an-email', /e-mail/],
  ['phone', undefined, /is required/],
  ['phone', '12345678', /08 followed by digits/],
  ['phone', '08-1234', /08 followed by digits/],
  ['notifyUrl', undefined, /is required/],
  ['notifyUrl', 'ftp://example.com/notify', /http or https/],
  ['notifyUrl', 'not a url', /http or https/],
  ['expiryPeriod', undefined, /is required/],
  ['expiryPeriod', '29', /30 to 7200/],
  ['expiryPeriod', '7201', /30 to 7200/],
  ['expiryPeriod', 'sixty', /30 to 7200/],
  ['dateTime', undefined, /is required/],
  ['dateTime', '2026-01-01T12:00:00', /yyyyMMddHHmmss/], // ISO 8601 needs an offset to name an instant
  ['dateTime', '20260230120000', /yyyyMMddHHmmss/],
];

for (const engine of ENGINES) {
  describe(`refusals on ${engine}`, () => {
    let h: Harness;
    before(async () => {
      h = await startHarness(engine);
    });
    after(() => h.stop());

    async function assertRefused(path: string, body: unknown, code: 'FAIL' | 'NOTEXIST', message: RegExp) {
      const answer = await postJson(`${h.url}${path}`, body);
      assert.equal(answer.status, 200);
      assert.equal(answer.body.platRespCode, code, JSON.stringify(answer.body));
      assert.match(answer.body.platRespMessage!, message);
      assert.ok(h.verifies(answer.body), 'refusals are signed too');
      assert.deepEqual(Object.keys(answer.body).sort(), ['platRespCode', 'platRespMessage', 'platSign']);
      return answer.body;
    }

    test('an unknown merchant gets NOTEXIST on every endpoint', async () => {
      const other = merchantKeys('unregistered');
      for (const path of ['/gateway/pay', '/gateway/prepaidOrder']) {
        const fields = path === '/gateway/pay' ? vaRequest('NOBODY-999') : linkRequest('NOBODY-999');
        await assertRefused(path, signed(fields, other.privateKey), 'NOTEXIST', /^merchantCode: no merchant/);
      }
      const query = { merchantCode: 'NOBODY-999', orderNum: 'x', queryType: 'ORDER_QUERY', dateTime: formatDateTime() };
      await assertRefused('/gateway/query', signed(query, other.privateKey), 'NOTEXIST', /^merchantCode/);
    });

    test('a malformed merchantCode or body is FAIL', async () => {
      const key = merchantKeys().privateKey;
      await assertRefused('/gateway/pay', signed(vaRequest('ABC'), key), 'FAIL', /^merchantCode: must be 5 to 50/);
      await assertRefused('/gateway/pay', signed(vaRequest('M'.repeat(51)), key), 'FAIL', /^merchantCode: must be 5 to 50/);
      await assertRefused('/gateway/pay', signed(vaRequest(undefined as unknown as string), key), 'FAIL', /^merchantCode: is required/);
      await assertRefused('/gateway/pay', [vaRequest(MERCHANT_CODE)], 'FAIL', /^body: must be a JSON object/);
      await assertRefused('/gateway/pay', { ...signed(vaRequest(MERCHANT_CODE), key), merchantCode: 12345 }, 'FAIL', /^merchantCode: must be a string/);
    });

    test('sign: missing, malformed, too long, wrong key, or not over the fields sent', async () => {
      const fields = vaRequest(MERCHANT_CODE);
      const good = sign(fields, merchantKeys().privateKey);
      await assertRefused('/gateway/pay', fields, 'FAIL', /^sign: is required/);
      await assertRefused('/gateway/pay', { ...fields, sign: 'not base64!' }, 'FAIL', /^sign: must be a base64 signature/);
      await assertRefused('/gateway/pay', { ...fields, sign: 'A'.repeat(516) }, 'FAIL', /^sign: must be at most 512/);
      await assertRefused('/gateway/pay', signed(fields, merchantKeys('intruder').privateKey), 'FAIL', /^sign: does not verify/);
      await assertRefused('/gateway/pay', { ...fields, payMoney: '1500000', sign: good }, 'FAIL', /^sign: does not verify/);
      await assertRefused('/gateway/pay', { ...fields, sign: good, unsignedExtra: 'x' }, 'FAIL', /^sign: does not verify/);
      await assertRefused('/gateway/pay', { ...fields, sign: good.slice(0, -8) }, 'FAIL', /^sign: /);
      assert.equal(await h.gateway.findOrderByOrderNum(MERCHANT_CODE, fields.orderNum!), undefined, 'nothing was stored');
    });

    for (const [field, value, rule] of BAD_FIELDS) {
      test(`${field} = ${JSON.stringify(value)?.slice(0, 20)} is FAIL naming ${field}`, async () => {
        const fields: Fields = { ...vaRequest(MERCHANT_CODE), [field]: value };
        const body = await assertRefused('/gateway/pay', signed(fields, merchantKeys().privateKey), 'FAIL', new RegExp(`(^|; )${field}: `));
        assert.match(body.platRespMessage!, rule);
        if (typeof fields.orderNum === 'string') {
          assert.equal(await h.gateway.findOrderByOrderNum(MERCHANT_CODE, fields.orderNum), undefined);
        }
      });
    }

    test('payment links: unknown method, bad redirectUrl, and a field of the wrong type', async () => {
      const key = merchantKeys().privateKey;
      await assertRefused('/gateway/prepaidOrder', signed(linkRequest(MERCHANT_CODE, { method: 'GOPAY' }), key), 'FAIL', /^method: must be null or one of/);
      await assertRefused('/gateway/prepaidOrder', signed(linkRequest(MERCHANT_CODE, { redirectUrl: 'javascript:alert(1)' }), key), 'FAIL', /^redirectUrl: /);
      // A whole JSON number is read as its decimal text; a fraction is not a rupiah amount.
      const numeric = { ...linkRequest(MERCHANT_CODE), payMoney: 150000.5 } as unknown as Record<string, string>;
      await assertRefused('/gateway/prepaidOrder', signed(numeric, key), 'FAIL', /^payMoney: must be a string/);
    });

    test('several bad fields are all named', async () => {
      const fields = vaRequest(MERCHANT_CODE, { email: 'nope', phone: '123', expiryPeriod: '5' });
      const body = await assertRefused('/gateway/pay', signed(fields, merchantKeys().privateKey), 'FAIL', /email: /);
      assert.match(body.platRespMessage!, /phone: /);
      assert.match(body.platRespMessage!, /expiryPeriod: /);
    });

    test('a repeated orderNum is FAIL on both endpoints, even across them; another merchant may reuse it', async () => {
      const orderNum = uniqueOrderNum('DUP');
      assert.equal((await h.client.createVa({ orderNum })).body.platRespCode, 'SUCCESS');
      const again = await h.client.createVa({ orderNum });
      assert.equal(again.body.platRespCode, 'FAIL');
      assert.equal(again.body.platRespMessage, 'orderNum: is already used by another order of this merchant');
      assert.ok(h.verifies(again.body));
      const asLink = await h.client.createLink({ orderNum });
      assert.equal(asLink.body.platRespCode, 'FAIL');
      assert.match(asLink.body.platRespMessage!, /^orderNum: is already used/);

      const second = merchantKeys('second');
      await h.gateway.registerMerchant({ merchantCode: 'M-TEST-002', publicKey: second.publicKey });
      const other = await postJson(`${h.url}/gateway/pay`, signed(vaRequest('M-TEST-002', { orderNum }), second.privateKey));
      assert.equal(other.body.platRespCode, 'SUCCESS');
    });

    test('payMoney outside the method limits is FAIL naming payMoney and the range', async () => {
      const low = await h.client.createVa({ method: 'VA_BCA', payMoney: '9999' });
      assert.equal(low.body.platRespCode, 'FAIL');
      assert.equal(low.body.platRespMessage, 'payMoney: must be from 10000 to 50000000 rupiah for VA_BCA');
      const high = await h.client.createLink({ method: 'QRIS', payMoney: '10000001' });
      assert.match(high.body.platRespMessage!, /^payMoney: must be from 1000 to 10000000 rupiah for QRIS/);
      const noMethodTooHigh = await h.client.createLink({ payMoney: '50000001' });
      assert.equal(noMethodTooHigh.body.platRespMessage, 'payMoney: must be from 1000 to 50000000 rupiah');
      const noMethodOk = await h.client.createLink({ payMoney: '1000' });
      assert.equal(noMethodOk.body.platRespCode, 'SUCCESS', 'a link some method accepts is created');
    });

    test('callback URLs with credentials are refused even in the sandbox', async () => {
      const answer = await h.client.createVa({ notifyUrl: 'http://user:pass@127.0.0.1:9/notify' });
      assert.equal(answer.body.platRespCode, 'FAIL');
      assert.match(answer.body.platRespMessage!, /^notifyUrl: must not contain a user name or password/);
    });

    test('query refusals: NOTEXIST for unknown, foreign or mismatched orders; FAIL for bad fields', async () => {
      const mine = await h.client.createVa();
      const query = (fields: Fields) =>
        signed({ merchantCode: MERCHANT_CODE, queryType: 'ORDER_QUERY', dateTime: formatDateTime(), ...fields }, merchantKeys().privateKey);
      await assertRefused('/gateway/query', query({ orderNum: 'never-created' }), 'NOTEXIST', /^no order/);
      await assertRefused('/gateway/query', query({ platOrderNum: 'AAAAAAAAAAAAAAAAAAAAAAAA' }), 'NOTEXIST', /^no order/);
      await assertRefused('/gateway/query', query({ platOrderNum: mine.body.platOrderNum, orderNum: 'other' }), 'NOTEXIST', /^no order/);
      await assertRefused('/gateway/query', query({}), 'FAIL', /^orderNum: orderNum or platOrderNum is required/);
      await assertRefused('/gateway/query', query({ orderNum: 'x', queryType: 'CASH_QUERY' }), 'FAIL', /^queryType: must be ORDER_QUERY/);

      const foreign = merchantKeys('foreign');
      await h.gateway.registerMerchant({ merchantCode: 'M-FOREIGN', publicKey: foreign.publicKey });
      const theirs = signed(
        { merchantCode: 'M-FOREIGN', queryType: 'ORDER_QUERY', dateTime: formatDateTime(), platOrderNum: mine.body.platOrderNum },
        foreign.privateKey,
      );
      await assertRefused('/gateway/query', theirs, 'NOTEXIST', /^no order/);
    });
  });
}

describe('production mode (no sandbox)', () => {
  let h: Harness;
  before(async () => {
    h = await startHarness('sqlite', { sandbox: false });
  });
  after(() => h.stop());

  test('notifyUrl and redirectUrl must be https to a public host', async () => {
    const http = await h.client.createVa({ notifyUrl: 'http://shop.example.com/notify' });
    assert.equal(http.body.platRespCode, 'FAIL');
    assert.equal(http.body.platRespMessage, 'notifyUrl: must use https in production mode');
    const loopback = await h.client.createVa({ notifyUrl: 'https://127.0.0.1/notify' });
    assert.match(loopback.body.platRespMessage!, /^notifyUrl: must not point to/);
    const metadata = await h.client.createLink({ notifyUrl: 'https://shop.example.com/n', redirectUrl: 'https://169.254.169.254/latest' });
    assert.match(metadata.body.platRespMessage!, /^redirectUrl: must not point to/);
    const ok = await h.client.createLink({ notifyUrl: 'https://shop.example.com/n', redirectUrl: 'https://shop.example.com/done' });
    assert.equal(ok.body.platRespCode, 'SUCCESS');
  });
});
