/**
 * One true amount (issue 32): for every method, what the plug-in tells the browser (the status
 * answer, which `<pay-button>` turns into "Transfer Rp … to …") and what its return page shows
 * add up to the gateway's own total for the order (`payMoney + payFee`, what a VA transfer must
 * be exactly). And "back to the shop without paying" is said as it is: not started, at once.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { gatewayInternals } from '@tombolbayar/gateway/internal';
import { formatRupiah } from '@tombolbayar/protocol/formats';
import { METHOD_CODES } from '@tombolbayar/protocol/methods';
import { RETURN_CHECK_MS } from '../src/routes/return.ts';
import { MERCHANT_CODE } from './support/keys.ts';
import { startHarness, type Harness } from './support/harness.ts';

let shop: Harness;
before(async () => {
  shop = await startHarness({ proxy: true });
});
after(async () => {
  await shop.close();
});

async function gatewayOrder(orderNum: string) {
  const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
  assert.ok(order?.redirectUrl, `the gateway has order ${orderNum}`);
  return order;
}

async function returnPage(orderNum: string, headers: Record<string, string> = {}): Promise<string> {
  const res = await fetch((await gatewayOrder(orderNum)).redirectUrl!, { headers });
  assert.equal(res.status, 200);
  return res.text();
}

/** The `<dd>` after the `<dt>` named `term` on the return page. */
function fact(html: string, term: string): string | undefined {
  return new RegExp(`<dt>${term}</dt><dd[^>]*>([^<]*)</dd>`).exec(html)?.[1];
}

describe('every amount the customer is asked to pay is the gateway\'s total', () => {
  for (const method of METHOD_CODES) {
    test(`${method}: the status answer and the return page match the gateway`, async () => {
      const { body } = await shop.createLink({ item: 'kopi' });
      const platOrderNum = await shop.platOrderNumOf(body.orderNum);
      await gatewayInternals(shop.gateway).simulate!.chooseMethod(platOrderNum, method);
      const held = await gatewayOrder(body.orderNum);
      assert.ok(held.payFee !== null, `${method}: the gateway fixed a fee`);
      const total = held.payMoney + held.payFee;

      // The return page asks the gateway about an order with no method yet, so it knows the fee.
      const html = await returnPage(body.orderNum);
      assert.equal(fact(html, 'Amount'), formatRupiah(held.payMoney));
      assert.equal(fact(html, 'Fee'), formatRupiah(held.payFee));
      assert.equal(fact(html, 'Total to pay'), formatRupiah(total));
      assert.match(html, /<h1>Payment not confirmed yet<\/h1>/, 'a method was chosen: the payment may still arrive');

      // The element's source: what it adds up for "Transfer … to …".
      const status = await shop.status(body.orderNum, body.statusToken);
      assert.equal(status.body.method, method);
      assert.equal(Number(status.body.payMoney) + Number(status.body.payFee), total);
    });
  }

  test('in Indonesian too: Biaya and Total yang dibayar', async () => {
    const { body } = await shop.createLink({ item: 'teh' });
    await gatewayInternals(shop.gateway).simulate!.chooseMethod(await shop.platOrderNumOf(body.orderNum), 'VA_BNI');
    const held = await gatewayOrder(body.orderNum);
    const html = await returnPage(body.orderNum, { 'accept-language': 'id-ID,id;q=0.9' });
    assert.equal(fact(html, 'Biaya'), formatRupiah(held.payFee!));
    assert.equal(fact(html, 'Total yang dibayar'), formatRupiah(held.payMoney + held.payFee!));
  });

  test('no method chosen: the status answer has no fee, the return page shows the amount alone', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    const status = await shop.status(body.orderNum, body.statusToken);
    assert.equal(status.body.payFee, undefined);
    const html = await returnPage(body.orderNum);
    assert.equal(fact(html, 'Amount'), 'Rp 150.000');
    assert.equal(fact(html, 'Fee'), undefined);
  });
});

describe('back to the shop without paying', () => {
  test('no method chosen at the gateway: "Payment not started", never "if you have paid"', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    const html = await returnPage(body.orderNum);
    assert.match(html, /<h1>Payment not started<\/h1>/);
    assert.match(html, /Nothing was charged/);
    assert.doesNotMatch(html, /If you have paid/);
    assert.match(html, /data-outcome="not_started"/);
  });

  test('in Indonesian: "Pembayaran belum dimulai"', async () => {
    const { body } = await shop.createLink({ item: 'kopi', lang: 'id' });
    const html = await returnPage(body.orderNum);
    assert.match(html, /<h1>Pembayaran belum dimulai<\/h1>/);
    assert.doesNotMatch(html, /Jika Anda sudah membayar/);
  });

  test('the gateway cannot be asked: not confirmed yet (the customer may have a number), never "not started"', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    await shop.proxy!.down();
    try {
      const html = await returnPage(body.orderNum);
      assert.match(html, /<h1>Payment not confirmed yet<\/h1>/);
    } finally {
      await shop.proxy!.up();
    }
  });

  test('a gateway that does not answer: the page comes within RETURN_CHECK_MS and a little, "not confirmed yet"', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    shop.proxy!.mode = 'stall';
    try {
      const started = Date.now();
      const html = await returnPage(body.orderNum);
      assert.ok(Date.now() - started < RETURN_CHECK_MS + 1_500, `${Date.now() - started} ms`);
      assert.match(html, /<h1>Payment not confirmed yet<\/h1>/);
    } finally {
      shop.proxy!.mode = 'pass';
    }
  });

  test('a method chosen a moment before leaving: the page asks the gateway, so it is pending, not "not started"', async () => {
    const { body } = await shop.createLink({ item: 'kopi' });
    // The store learned nothing yet (no poll since the choice).
    await gatewayInternals(shop.gateway).simulate!.chooseMethod(await shop.platOrderNumOf(body.orderNum), 'VA_MANDIRI');
    const html = await returnPage(body.orderNum);
    assert.match(html, /<h1>Payment not confirmed yet<\/h1>/);
    assert.equal((await shop.stored(body.orderNum))?.method, 'VA_MANDIRI');
  });
});
