/**
 * One test per defect the hostile suites found in the plug-in, as the smallest request that shows
 * it, kept after the fix so it stays fixed:
 * - E1: a path the router cannot percent-decode (`GET /orders/%ZZ`) was a 500 `internal`
 *   (fixed in src/http/routes.ts: it is an unknown order, 404);
 * - E2: an `item` holding U+0000 was a 500 with the store on PostgreSQL (fixed in
 *   src/routes/bodies.ts: control characters are refused, naming `item`);
 * - E3: a JSON body declared in another charset (`charset=latin1`) was read as UTF-8 without a
 *   word (fixed in src/http/body.ts: 415, as the gateway answers);
 * - E4: a repeated key in a JSON body was accepted, the last value winning (fixed in
 *   src/http/body.ts with the protocol's repeatedJsonKey: 400 naming the key).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { sign } from '@tombolbayar/protocol/node';
import { DATABASE_URL } from './support/engines.ts';
import { platformKeys } from './support/keys.ts';
import { objectText, send, startShop, type HostileShop } from './hostile-support.ts';

for (const engine of DATABASE_URL ? (['sqlite', 'postgres'] as const) : (['sqlite'] as const)) {
  describe(`plug-in regressions on ${engine}`, () => {
    let shop: HostileShop;
    const call = (path: string, options: Parameters<typeof send>[2] = {}) => send(shop.merchantUrl, `/pay${path}`, options);
    const json = (path: string, body: string, headers: Record<string, string> = {}) =>
      call(path, { method: 'POST', headers: { 'content-type': 'application/json', origin: shop.merchantUrl, ...headers }, body });
    before(async () => {
      // A quote that sells anything, as a donation page would: the item reaches the store.
      shop = await startShop({ engine, options: { quote: () => ({ payMoney: 50_000, productDetail: 'Donasi', name: 'Budi', email: 'budi@example.com', phone: '081234567890' }) } });
    });
    after(() => shop.close());

    test('E1: an order number the router cannot decode is an unknown order, not a 500', async () => {
      for (const path of ['/orders/%ZZ?token=x', '/orders/PB%?token=x', '/orders/%E0%A4%A']) {
        const answer = await call(path, { headers: { origin: shop.merchantUrl } });
        assert.equal(answer.status, 404, path);
        assert.equal(answer.json.error.code, 'not_found');
      }
    });

    test('E2: an item with a control character is refused naming item; nothing stored', async () => {
      const before = await shop.shopProbe.version();
      for (const item of ['a\u0000b', 'line\nbreak', '\u007f']) {
        const answer = await json('/links', JSON.stringify({ idempotencyKey: `regression-e2-${engine}-${item.length}-${item.charCodeAt(1)}`, item }));
        assert.equal(answer.status, 400, answer.text);
        assert.deepEqual(answer.json.error.issues, [{ field: 'item', message: 'must not contain control characters' }]);
      }
      assert.equal(await shop.shopProbe.version(), before);
      const unicode = await json('/links', JSON.stringify({ idempotencyKey: `regression-e2-${engine}-unicode`, item: 'Kopi ☕ 咖啡 \u202e' }));
      assert.equal(unicode.status, 201, 'other characters are fine');
    });

    test('E3: a JSON body in another charset is refused with 415', async () => {
      for (const type of ['application/json; charset=latin1', 'application/json; charset="utf-16"', 'application/json;charset=iso-8859-1']) {
        const answer = await json('/links', JSON.stringify({ idempotencyKey: 'regression-e3-aaaaaaa', item: 'x' }), { 'content-type': type });
        assert.equal(answer.status, 415, type);
        assert.match(answer.json.error.message, /charset must be utf-8/);
      }
      const utf8 = await json('/links', JSON.stringify({ idempotencyKey: `regression-e3-${engine}-utf8`, item: 'x' }), { 'content-type': 'application/json; charset=UTF-8' });
      assert.equal(utf8.status, 201);
    });

    test('E4: a repeated key is refused naming it, in a browser body and in a JSON notification', async () => {
      const before = await shop.shopProbe.version();
      const text = objectText([['idempotencyKey', '"regression-e4-aaaaaaa"'], ['item', '"kopi"'], ['item', '"emas"']]);
      const answer = await json('/links', text);
      assert.equal(answer.status, 400);
      assert.deepEqual(answer.json.error.issues, [{ field: 'item', message: 'must appear only once' }]);
      const fields = { code: '00', msg: 'SUCCESS', status: 'SUCCESS', orderNum: 'PBXXXXXXXXXXXXXXXX', platOrderNum: 'x'.repeat(24), payMoney: '50000', name: 'Budi', email: 'budi@example.com' };
      const signed = { ...fields, platSign: sign(fields, platformKeys().privateKey) };
      const entries: Array<[string, string]> = Object.entries(signed).map(([k, v]) => [k, JSON.stringify(v)]);
      const notify = await call('/notify', { method: 'POST', headers: { 'content-type': 'application/json' }, body: objectText([['payMoney', '"1"'], ...entries]) });
      assert.equal(notify.status, 400);
      assert.equal(notify.text, 'REJECTED unreadable_body: field payMoney appears more than once');
      assert.equal(await shop.shopProbe.version(), before);
    });
  });
}
