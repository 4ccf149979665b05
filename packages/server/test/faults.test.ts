/**
 * The gateway down, slow, silent, answering UNKNOWN, then recovering. The real gateway answers
 * every request it receives; a TCP proxy in front of it decides whether and when bytes pass, and
 * the gateway's own sandbox fault rules make it answer UNKNOWN. Whatever happens, one key is one
 * order at the gateway.
 */
import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { MERCHANT_CODE, strangerKeys } from './support/keys.ts';
import { newKey, startHarness, type Harness } from './support/harness.ts';
import { logLineFor } from '../src/logging/event-log.ts';

let shop: Harness | undefined;
afterEach(async () => {
  await shop?.close();
  shop = undefined;
});

async function setCreateFault(harness: Harness, create: Record<string, unknown> | undefined): Promise<void> {
  const url = `${harness.gatewayUrl}/sandbox/faults/${MERCHANT_CODE}`;
  const response = create
    ? await fetch(url, { method: 'PUT', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ create }) })
    : await fetch(url, { method: 'DELETE' });
  assert.equal(response.status, 200, await response.text());
}

/** How many orders the gateway holds under this orderNum: always 0 or 1 (the gateway enforces it), but we check it exists. */
async function gatewayHas(harness: Harness, orderNum: string): Promise<boolean> {
  return (await harness.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum)) !== undefined;
}

function callsFor(harness: Harness, orderNum: string): string[] {
  return harness.eventsNamed('gateway.call').filter((call) => call.orderNum === orderNum).map((call) => `${call.operation}:${call.outcome}`);
}

/**
 * The safety property of every retry, whatever the timing: a create is only sent again after a
 * query said the gateway does not have the order.
 */
function assertQueriedBeforeEveryResend(calls: readonly string[]): void {
  let creates = 0;
  let cleared = true;
  for (const call of calls) {
    if (call.startsWith('query:')) cleared ||= call === 'query:not_exist';
    else {
      assert.ok(creates === 0 || cleared, `a create was re-sent without a query saying NOTEXIST first: ${calls.join(', ')}`);
      creates += 1;
      cleared = false;
    }
  }
}

/*
 * Timing: on two busy cores a gateway answer may take a while, so every call that must succeed
 * has a 2 s timeout, and a proxy that must cause a timeout holds the answer back 4 times longer.
 */
const TIMEOUT_MS = 2_000;
const WELL_PAST_TIMEOUT_MS = 8_000;

describe('the gateway down, then recovering', () => {
  test('connection refused: bounded retries, a retryable 503, the order kept; the same key later makes it, once', async () => {
    shop = await startHarness({ proxy: true });
    await shop.proxy!.down();
    const key = newKey();
    const down = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(down.status, 503);
    assert.equal(down.body.error.code, 'gateway_unavailable');
    assert.equal(down.body.error.retryable, true);
    const calls = shop.eventsNamed('gateway.call');
    assert.deepEqual(calls.map((call) => `${call.operation}:${call.outcome}:${call.attempt}`), [
      'prepaidOrder:network_error:1', 'prepaidOrder:network_error:2', 'prepaidOrder:network_error:3',
    ], 'refused connections never reached the gateway: re-sent without a query, 1 + maxRetries times');
    const orderNum = calls[0]!.orderNum;
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating');

    await shop.proxy!.up();
    const recovered = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(recovered.status, 201, JSON.stringify(recovered.body));
    assert.equal(recovered.body.orderNum, orderNum, 'the same order, resumed');
    assert.ok(await gatewayHas(shop, orderNum));
    assert.deepEqual(callsFor(shop, orderNum).slice(3), ['query:not_exist', 'prepaidOrder:success'], 'resumed: asked first, then created');
    const fresh = await shop.createLink({ item: 'teh' });
    assert.equal(fresh.status, 201, 'new orders work again');
  });
});

describe('the gateway slow', () => {
  test('an answer later than the timeout: the order is found by a query, not created twice', async () => {
    shop = await startHarness({ proxy: true, options: { timeoutMs: TIMEOUT_MS, totalTimeoutMs: 20_000 } });
    shop.proxy!.mode = 'slow';
    shop.proxy!.delayMs = WELL_PAST_TIMEOUT_MS;
    // The gateway recovers right after the first timeout.
    shop.router.events.on('gateway.call', (call) => {
      if (call.outcome === 'timeout') shop!.proxy!.mode = 'pass';
    });
    const created = await shop.createLink({ item: 'kopi' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const calls = callsFor(shop, created.body.orderNum);
    assert.equal(calls[0], 'prepaidOrder:timeout');
    assert.equal(calls.filter((call) => call.startsWith('prepaidOrder:')).length, 1, `sent once: ${calls.join(', ')}`);
    assert.equal(calls.at(-1), 'query:success');
    const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, created.body.orderNum);
    assert.equal(created.body.url, shop.gateway.paymentUrl(atGateway!.platOrderNum), 'the link from the query');
    const transitions = shop.eventsNamed('order.transition').filter((event) => event.orderNum === created.body.orderNum);
    assert.equal(transitions.at(-1)!.source, 'query', 'adopted from the query');
  });

  test('slow every time: a retryable 504 within the total budget; the same key later adopts the order', async () => {
    shop = await startHarness({ proxy: true, options: { timeoutMs: TIMEOUT_MS, totalTimeoutMs: 3 * TIMEOUT_MS + 1_000, maxRetries: 2 } });
    shop.proxy!.mode = 'slow';
    shop.proxy!.delayMs = WELL_PAST_TIMEOUT_MS;
    const key = newKey();
    const slow = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(slow.status, 504);
    assert.equal(slow.body.error.code, 'gateway_timeout');
    assert.equal(slow.body.error.retryable, true);
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    const first = callsFor(shop, orderNum);
    assert.equal(first[0], 'prepaidOrder:timeout');
    assert.ok(first.length >= 2 && first.length <= 3, `1 + at most maxRetries calls: ${first.join(', ')}`);
    assert.ok(first.slice(1).every((call) => call === 'query:timeout'), `after a timeout only queries: ${first.join(', ')}`);
    assert.equal((await shop.router.getOrder(orderNum))!.status, 'creating', 'kept to be resumed');

    shop.proxy!.mode = 'pass';
    const later = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(later.status, 201);
    assert.equal(later.body.orderNum, orderNum);
    const resumed = callsFor(shop, orderNum).slice(first.length);
    assert.equal(resumed.at(-1), 'query:success', `found: ${resumed.join(', ')}`);
    assert.ok(!resumed.some((call) => call.startsWith('prepaidOrder:')), 'not re-sent');
    assert.ok(await gatewayHas(shop, orderNum));
  });

  test('a gateway that accepts the connection and says nothing: timeout, query, then create', async () => {
    shop = await startHarness({ proxy: true, options: { timeoutMs: TIMEOUT_MS, totalTimeoutMs: 20_000 } });
    shop.proxy!.mode = 'stall';
    shop.router.events.on('gateway.call', (call) => {
      if (call.outcome === 'timeout') shop!.proxy!.mode = 'pass';
    });
    const created = await shop.createLink({ item: 'teh' });
    assert.equal(created.status, 201);
    const calls = callsFor(shop, created.body.orderNum);
    assert.equal(calls[0], 'prepaidOrder:timeout');
    assert.equal(calls.at(-1), 'prepaidOrder:success');
    assertQueriedBeforeEveryResend(calls);
    assert.ok(await gatewayHas(shop, created.body.orderNum));
  });

  test('the connection cut after the request was sent: the order is found, not re-created', async () => {
    shop = await startHarness({ proxy: true });
    shop.proxy!.mode = 'cut';
    shop.router.events.on('gateway.call', (call) => {
      if (call.outcome === 'network_error') shop!.proxy!.mode = 'pass';
    });
    const created = await shop.createLink({ item: 'kopi' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const calls = callsFor(shop, created.body.orderNum);
    assert.equal(calls[0], 'prepaidOrder:network_error');
    assert.equal(calls.filter((call) => call.startsWith('prepaidOrder:')).length, 1, `the gateway had it: never re-sent (${calls.join(', ')})`);
    assert.equal(calls.at(-1), 'query:success');
  });
});

describe('the gateway answering UNKNOWN', () => {
  test('UNKNOWN but the order was registered: adopted after a query', async () => {
    shop = await startHarness();
    await setCreateFault(shop, { respond: 'UNKNOWN', orderCreated: true });
    const created = await shop.createLink({ item: 'kopi' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.deepEqual(callsFor(shop, created.body.orderNum), ['prepaidOrder:unknown', 'query:success']);
    await shop.payAtGateway(created.body.orderNum);
    const paid = await shop.status(created.body.orderNum, created.body.statusToken);
    assert.ok(['pending', 'paid'].includes(paid.body.status));
  });

  test('UNKNOWN and not registered, every time: a retryable 503 with the gateway code; recovered, the same key creates it once', async () => {
    shop = await startHarness();
    await setCreateFault(shop, { respond: 'UNKNOWN', orderCreated: false });
    const key = newKey();
    const unknown = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(unknown.status, 503);
    assert.deepEqual([unknown.body.error.code, unknown.body.error.gatewayCode, unknown.body.error.retryable], ['gateway_unknown_outcome', 'UNKNOWN', true]);
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    const calls = callsFor(shop, orderNum);
    assert.deepEqual(calls, ['prepaidOrder:unknown', 'query:not_exist', 'prepaidOrder:unknown', 'query:not_exist', 'prepaidOrder:unknown']);
    assertQueriedBeforeEveryResend(calls);
    assert.equal(await gatewayHas(shop, orderNum), false);

    await setCreateFault(shop, undefined);
    const recovered = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(recovered.status, 201);
    assert.equal(recovered.body.orderNum, orderNum);
    assert.ok(await gatewayHas(shop, orderNum));
  });

  test('Create VA through UNKNOWN keeps its VA number from the query', async () => {
    shop = await startHarness();
    await setCreateFault(shop, { respond: 'UNKNOWN', orderCreated: true });
    const va = await shop.post('/va', { item: 'teh', method: 'VA_PERMATA', idempotencyKey: newKey() });
    assert.equal(va.status, 201, JSON.stringify(va.body));
    const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, va.body.orderNum);
    assert.equal(va.body.vaNumber, atGateway!.vaNumber);
  });
});

describe('answers that cannot be trusted', () => {
  test('answers signed with another key are never trusted: 502, nothing handed to the browser, the order kept for reconcile', async () => {
    shop = await startHarness({ options: { platformPublicKey: strangerKeys().publicKey } });
    const answer = await shop.createLink({ item: 'kopi' });
    assert.equal(answer.status, 502);
    assert.equal(answer.body.error.code, 'gateway_response_invalid');
    assert.match(answer.body.error.message, /platSign does not verify/);
    assert.ok(!('url' in answer.body));
    const orderNum = shop.eventsNamed('gateway.call')[0]!.orderNum;
    assert.ok(callsFor(shop, orderNum).every((call) => call.endsWith(':invalid_response')));
    const kept = (await shop.router.getOrder(orderNum))!;
    assert.equal(kept.status, 'creating', 'the gateway may have it: not marked failed');
    // The gateway did create it: recorded, said as an error naming the likely cause, kept for reconcile().
    assert.ok(await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum), 'the gateway holds the order');
    const warned = shop.eventsNamed('warning').filter((w) => w.code === 'gateway_answer_untrusted');
    assert.equal(warned.length, 1);
    assert.equal(warned[0]!.orderNum, orderNum);
    assert.match(warned[0]!.message, /platformPublicKey is not the key of this gateway/);
    assert.match(warned[0]!.message, /reconcile\(\) asks the gateway about it/);
    assert.equal(logLineFor('warning', warned[0]!).level, 'error');
  });

  test('a key rotation: the new platform key listed beside an old one verifies', async () => {
    const { platformKeys } = await import('./support/keys.ts');
    shop = await startHarness({ options: { platformPublicKey: [strangerKeys().publicKey, platformKeys().publicKey] } });
    assert.equal((await shop.createLink({ item: 'kopi' })).status, 201);
  });
});
