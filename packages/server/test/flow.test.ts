/**
 * The main flow against the real gateway: the browser creates, the customer pays, the gateway
 * notifies, the status says paid. Plus what a checkout does around it: double clicks, replays,
 * Create VA, the server-side API and the merchant's quote() saying no.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { MERCHANT_CODE } from './support/keys.ts';
import { simulationsFor } from '@tombolbayar/gateway/internal';
import { CATALOGUE, newKey, startHarness, waitFor, type Harness } from './support/harness.ts';

describe('create -> pay -> notify -> status', () => {
  let shop: Harness;
  before(async () => {
    shop = await startHarness();
  });
  after(async () => {
    await shop.close();
  });

  test('a payment link is created, paid at the gateway, notified and reported paid', async () => {
    const created = await shop.createLink({ item: 'kopi' });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    const { orderNum, url, expiresAt, statusToken } = created.body;
    assert.deepEqual(Object.keys(created.body).sort(), ['expiresAt', 'orderNum', 'status', 'statusToken', 'url']);
    assert.equal(new URL(url).origin, new URL(shop.gatewayUrl).origin);
    assert.ok(Date.parse(expiresAt) > Date.now() + 59 * 60_000, 'the default expiry is 60 minutes');
    assert.equal(created.headers.get('cache-control'), 'no-store');

    const pending = await shop.status(orderNum, statusToken);
    assert.equal(pending.status, 200);
    // The deadline the customer is told, the one the link answered with.
    // `confirmed: true`: the plug-in asked the gateway for this answer, so "no method" is its word.
    assert.deepEqual(pending.body, { orderNum, status: 'pending', payMoney: '150000', method: null, expiresAt, confirmed: true });
    assert.equal(pending.headers.get('cache-control'), 'no-store');

    await shop.payAtGateway(orderNum, 'VA_BNI');
    await waitFor(() => shop.fulfilled.some((order) => order.orderNum === orderNum), 'onPaid');
    const paid = await shop.status(orderNum, statusToken);
    assert.equal(paid.body.status, 'paid');
    assert.equal(paid.body.payMoney, '150000');
    assert.equal(paid.body.method, 'VA_BNI');
    assert.match(paid.body.vaNumber, /^\d+$/);
    assert.ok(Date.parse(paid.body.paidAt) <= Date.now());

    const fulfilled = shop.fulfilled.find((order) => order.orderNum === orderNum)!;
    assert.deepEqual(fulfilled.metadata, { item: 'kopi' });
    assert.equal(fulfilled.item, 'kopi');
    assert.equal(fulfilled.status, 'paid');
    const [delivery] = await shop.gateway.deliveries.list({ orderNum });
    assert.equal(delivery!.state, 'delivered', 'the gateway got SUCCESS');

    const transitions = shop.eventsNamed('order.transition').filter((event) => event.orderNum === orderNum).map((event) => `${event.from}->${event.to}:${event.source}`);
    assert.deepEqual(transitions, ['null->creating:create', 'creating->pending:create', 'pending->paid:notification']);
    const calls = shop.eventsNamed('gateway.call').filter((event) => event.orderNum === orderNum && event.operation !== 'query');
    assert.deepEqual(calls.map((call) => [call.operation, call.outcome, call.attempt]), [['prepaidOrder', 'success', 1]]);
    assert.ok(calls[0]!.durationMs >= 0);
  });

  test('the gateway gets the price from quote(), never from the browser', async () => {
    const created = await shop.createLink({ item: 'teh' });
    assert.equal(created.status, 201);
    const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, created.body.orderNum);
    assert.equal(atGateway!.payMoney, CATALOGUE.teh!.price);
    assert.equal(atGateway!.productDetail, 'Teh Tarik');
    const withPrice = await shop.createLink({ item: 'teh', payMoney: '1' });
    assert.equal(withPrice.status, 400);
    assert.deepEqual(withPrice.body.error.issues, [{ field: 'payMoney', message: 'is not allowed' }]);
  });

  test('a method chosen in the browser is sent to the gateway, aliases resolved', async () => {
    const created = await shop.createLink({ item: 'kopi', method: 'DANA' });
    assert.equal(created.status, 201);
    const atGateway = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, created.body.orderNum);
    assert.equal(atGateway!.method, 'EWALLET_DANA');
  });

  test('a double click (one key, concurrent requests) makes one order and one answer', async () => {
    const key = newKey();
    const answers = await Promise.all(Array.from({ length: 5 }, () => shop.createLink({ item: 'kopi', idempotencyKey: key })));
    for (const answer of answers) assert.equal(answer.status, 201, JSON.stringify(answer.body));
    const orderNums = new Set(answers.map((answer) => answer.body.orderNum));
    assert.equal(orderNums.size, 1);
    assert.equal(new Set(answers.map((answer) => answer.body.url)).size, 1);
    assert.equal(new Set(answers.map((answer) => answer.body.statusToken)).size, 1);
    assert.equal(answers.filter((answer) => answer.headers.get('idempotent-replayed') === 'true').length, 4);
    const [orderNum] = [...orderNums];
    const creates = shop.eventsNamed('gateway.call').filter((event) => event.orderNum === orderNum && event.operation === 'prepaidOrder');
    assert.equal(creates.length, 1, 'the gateway was called once');
  });

  test('a retry after success returns the same link; after payment still the same order', async () => {
    const key = newKey();
    const first = await shop.createLink({ item: 'teh', idempotencyKey: key });
    await shop.payAtGateway(first.body.orderNum);
    await waitFor(() => shop.fulfilled.some((order) => order.orderNum === first.body.orderNum), 'onPaid');
    const again = await shop.createLink({ item: 'teh', idempotencyKey: key });
    assert.equal(again.status, 201);
    // The same order, now said to be paid: the element shows the outcome instead of opening the link.
    assert.deepEqual(again.body, { ...first.body, status: 'paid' });
    assert.equal(first.body.status, 'pending');
    assert.equal(again.headers.get('idempotent-replayed'), 'true');
  });

  test('the same key with another body is refused', async () => {
    const key = newKey();
    assert.equal((await shop.createLink({ item: 'teh', idempotencyKey: key })).status, 201);
    const other = await shop.createLink({ item: 'kopi', idempotencyKey: key });
    assert.equal(other.status, 422);
    assert.equal(other.body.error.code, 'idempotency_mismatch');
  });

  test('quote() saying "not for sale" is a 422 with its message', async () => {
    const answer = await shop.createLink({ item: 'unicorn' });
    assert.equal(answer.status, 422);
    assert.deepEqual(answer.body, { error: { code: 'not_for_sale', message: 'unicorn is not for sale.', retryable: false } });
  });

  test('Create VA from the browser: the VA number comes back, priced by quote()', async () => {
    const answer = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', idempotencyKey: newKey() });
    assert.equal(answer.status, 201, JSON.stringify(answer.body));
    assert.deepEqual(Object.keys(answer.body).sort(), ['expiresAt', 'method', 'orderNum', 'payFee', 'payMoney', 'status', 'statusToken', 'vaNumber']);
    assert.equal(answer.body.method, 'VA_MANDIRI');
    assert.equal(answer.body.payMoney, '150000');
    assert.match(answer.body.vaNumber, /^\d+$/);
    await shop.payAtGateway(answer.body.orderNum);
    await waitFor(() => shop.fulfilled.some((order) => order.orderNum === answer.body.orderNum), 'onPaid');
    const status = await shop.status(answer.body.orderNum, answer.body.statusToken);
    assert.deepEqual([status.body.status, status.body.vaNumber], ['paid', answer.body.vaNumber]);
  });

  test('createVaOrder() and createPaymentLink() on the server, idempotent by key', async () => {
    const quote = { payMoney: 275_000, productDetail: 'Invoice 2026-001', name: 'PT Contoh', email: 'ap@contoh.co.id', phone: '081155501000' };
    const va = await shop.router.createVaOrder({ method: 'BRI', quote, idempotencyKey: 'invoice-2026-001' });
    assert.equal(va.method, 'VA_BRI');
    assert.equal(va.payMoney, '275000');
    const again = await shop.router.createVaOrder({ method: 'VA_BRI', quote, idempotencyKey: 'invoice-2026-001' });
    assert.equal(again.orderNum, va.orderNum);
    const link = await shop.router.createPaymentLink({ quote: { ...quote, payMoney: '99000' } });
    assert.equal(new URL(link.url).origin, new URL(shop.gatewayUrl).origin);
    assert.equal(link.order.payMoney, '99000');
    await assert.rejects(shop.router.createVaOrder({ method: 'BITCOIN', quote }), { code: 'invalid_request' });
    await assert.rejects(shop.router.createVaOrder({ method: 'VA_BCA', quote: { ...quote, productDetail: 'x'.repeat(40) } }), {
      code: 'quote_invalid',
      message: 'quote() returned an invalid order: productDetail: must be at most 32 characters',
    });
    const stored = await shop.router.getOrder(va.orderNum);
    assert.equal(stored!.status, 'pending');
  });

  test('a refusal by the gateway is a typed error, replayed for the same key', async () => {
    // A payMoney above the gateway's limit for the method: the gateway answers FAIL.
    const key = newKey();
    const refused = await shop.post('/va', { item: 'mahal', method: 'RETAIL_ALFAMART', idempotencyKey: key });
    assert.equal(refused.status, 502);
    assert.equal(refused.body.error.code, 'gateway_refused');
    assert.equal(refused.body.error.gatewayCode, 'FAIL');
    assert.equal(refused.body.error.retryable, false);
    assert.match(refused.body.error.message, /^The gateway refused the order: /);
    const replay = await shop.post('/va', { item: 'mahal', method: 'RETAIL_ALFAMART', idempotencyKey: key });
    assert.deepEqual(replay.body, refused.body);
  });
});

describe('refusing what the gateway would refuse, before calling it', () => {
  test('a request whose sign would exceed 512 characters is refused with a clear error', async () => {
    const shop = await startHarness({
      options: {
        quote: () => ({ payMoney: 1000, productDetail: 'p'.repeat(32), name: 'n'.repeat(32), email: `${'e'.repeat(60)}@${'d'.repeat(120)}.example`, phone: '081234567890' }),
      },
    });
    try {
      const answer = await shop.createLink({ item: 'kopi' });
      assert.equal(answer.status, 500);
      assert.equal(answer.body.error.code, 'signature_too_long');
      assert.match(answer.body.error.message, /would carry a 684-character sign; the gateway allows 512\. Its signed fields total \d+ bytes and at most 351 fit/);
      assert.equal(shop.eventsNamed('gateway.call').length, 0, 'nothing was sent');
    } finally {
      await shop.close();
    }
  });

  test('a payment url on another origin is never given to the browser', async () => {
    const shop = await startHarness({ options: { paymentPageOrigins: ['https://pay.bdpay.co.id'] } });
    try {
      const answer = await shop.createLink({ item: 'kopi' });
      assert.equal(answer.status, 502);
      assert.equal(answer.body.error.code, 'gateway_url_untrusted');
      assert.ok(!JSON.stringify(answer.body).includes(shop.gatewayUrl));
    } finally {
      await shop.close();
    }
  });
});

describe('a method chosen on the hosted page', () => {
  test('is what the first status poll reports, even right after the create (the gateway\'s PENDING answer records it)', async () => {
    // Default statusRefreshMs: the create's own answer does not count as a fresh check for a link
    // without a method, so the poll right after the popup closes asks the gateway.
    const shop = await startHarness();
    try {
      const created = await shop.createLink({ item: 'kopi' });
      const { orderNum, statusToken } = created.body;
      await simulationsFor(shop.gateway).chooseMethod(await shop.platOrderNumOf(orderNum), 'VA_BCA');
      const chosen = await shop.status(orderNum, statusToken);
      assert.equal(chosen.body.status, 'pending');
      assert.equal(chosen.body.method, 'VA_BCA');
      assert.match(String(chosen.body.vaNumber), /^\d+$/);
      assert.equal((await shop.stored(orderNum))?.method, 'VA_BCA', 'stored, not only answered');
      assert.equal(shop.onPaidCalls.length, 0);
    } finally {
      await shop.close();
    }
  });
});
