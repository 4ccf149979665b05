/**
 * Only a signed answer decides: an answer without a verifying `platSign` (a FAIL, a NOTEXIST, a
 * 4xx) from something on the path must never mark an order failed, at creation or in
 * reconcile(). The real gateway answers every request; a proxy removes or replaces its answers.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MERCHANT_CODE } from './support/keys.ts';
import { newKey, startHarness, type Harness } from './support/harness.ts';
import { stripSignatureFromFailures } from './support/rewrite-proxy.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

const calls = (harness: Harness, orderNum: string): string[] =>
  harness.eventsNamed('gateway.call').filter((call) => call.orderNum === orderNum).map((call) => `${call.operation}:${call.outcome}`);

/** A Create VA the gateway refuses (above Alfamart's limit): it answers FAIL, signed. */
const REFUSED_VA = { item: 'mahal', method: 'RETAIL_ALFAMART' };

describe('answers without a verifying platSign decide nothing', () => {
  test('an unsigned FAIL leaves the order creating; an unsigned NOTEXIST in reconcile() does not fail it; the signed ones do', async () => {
    const clock = { offset: 0 };
    shop = await startHarness({ rewriter: true, options: { now: () => Date.now() + clock.offset, statusRefreshMs: false } });
    shop.rewriter!.rewrite = stripSignatureFromFailures;

    const answer = await shop.post('/va', { ...REFUSED_VA, idempotencyKey: newKey() });
    assert.equal(answer.status, 502, JSON.stringify(answer.body));
    assert.equal(answer.body.error.code, 'gateway_response_invalid');
    assert.match(answer.body.error.message, /no platSign/);
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    const seen = calls(shop, orderNum);
    assert.equal(seen[0], 'pay:invalid_response');
    assert.ok(!seen.some((call) => call.endsWith(':refused') || call.endsWith(':not_exist')), `nothing unsigned was believed: ${seen.join(', ')}`);
    assert.equal(seen.filter((call) => call.startsWith('pay:')).length, 1, 'never re-sent on an unsigned NOTEXIST');
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating', 'not failed on an unsigned word');

    clock.offset = 5 * 60_000;
    const unsigned = await shop.router.reconcile();
    assert.deepEqual([unsigned.checked, unsigned.failed, unsigned.unreachable], [1, 0, 1]);
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating', 'an unsigned NOTEXIST fails nothing');

    shop.rewriter!.rewrite = undefined;
    const signed = await shop.router.reconcile();
    assert.deepEqual([signed.checked, signed.failed], [1, 1]);
    const failed = (await shop.router.getOrder(orderNum))!;
    assert.deepEqual([failed.status, failed.gatewayCode], ['failed', 'NOTEXIST']);
  });

  test('the same key after an unsigned FAIL: the signed FAIL is definitive and replayed', async () => {
    shop = await startHarness({ rewriter: true });
    shop.rewriter!.rewrite = stripSignatureFromFailures;
    const key = newKey();
    assert.equal((await shop.post('/va', { ...REFUSED_VA, idempotencyKey: key })).body.error.code, 'gateway_response_invalid');

    shop.rewriter!.rewrite = undefined;
    const refused = await shop.post('/va', { ...REFUSED_VA, idempotencyKey: key });
    assert.equal(refused.status, 502);
    assert.deepEqual([refused.body.error.code, refused.body.error.gatewayCode, refused.body.error.retryable], ['gateway_refused', 'FAIL', false]);
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'failed');
    assert.deepEqual((await shop.post('/va', { ...REFUSED_VA, idempotencyKey: key })).body, refused.body);
  });

  test('an unsigned HTTP 403 (a WAF on the path) is not a refusal: the order the gateway did register is adopted later', async () => {
    shop = await startHarness({ rewriter: true });
    shop.rewriter!.rewrite = () => ({ status: 403, fields: { platRespCode: 'FAIL', platRespMessage: 'Request blocked' } });
    const key = newKey();
    const blocked = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(blocked.status, 502, JSON.stringify(blocked.body));
    assert.equal(blocked.body.error.code, 'gateway_response_invalid');
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating');
    assert.ok(await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum), 'the gateway did register it behind the WAF');
    assert.equal(calls(shop, orderNum).filter((call) => call.startsWith('prepaidOrder:')).length, 1, 'never re-sent blindly');

    shop.rewriter!.rewrite = undefined;
    const adopted = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(adopted.status, 201, JSON.stringify(adopted.body));
    assert.equal(adopted.body.orderNum, orderNum);
    assert.equal(calls(shop, orderNum).at(-1), 'query:success');
  });
});
