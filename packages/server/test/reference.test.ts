/**
 * One purchase, one payable order: `quote()` names the purchase (`reference`, the merchant's cart
 * id), and requests for it from other tabs, reloads and devices (each with its own idempotency
 * key) get the same order back; once paid, the paid order. Another amount or method is another
 * order; two paid orders of one reference are never silent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { z } from 'zod';
import { CATALOGUE, newKey, startHarness, waitFor, type Harness } from './support/harness.ts';
import { ENGINES } from './support/engines.ts';

for (const engine of ENGINES) {
  describe(`merchant reference: one payable order per purchase (${engine.name})`, () => {
    let shop: Harness;
    let cleanup: () => Promise<void>;
    before(async () => {
      const fresh = await engine.fresh();
      cleanup = fresh.cleanup;
      shop = await startHarness({
        database: fresh.option,
        options: {
          fields: { cart: z.string().optional(), quantity: z.number().int().min(1).optional() },
          quote: (_req, body) => {
            const entry = CATALOGUE[body.item ?? '']!;
            const quantity = (body.quantity as number | undefined) ?? 1;
            return {
              payMoney: entry.price * quantity, productDetail: entry.name, name: 'Budi Santoso', email: 'budi@example.com', phone: '081234567890',
              ...(body.cart === undefined ? {} : { reference: body.cart as string }),
            };
          },
        },
      });
    });
    after(async () => {
      await shop.close();
      await cleanup();
    });

    const cart = () => `cart-${Math.random().toString(36).slice(2, 12)}`;

    test('two tabs (two keys) asking for one cart at once get one order; after payment both get the paid order', async () => {
      const id = cart();
      const tabs = await Promise.all([shop.createLink({ cart: id }), shop.createLink({ cart: id }), shop.createLink({ cart: id })]);
      for (const tab of tabs) assert.equal(tab.status, 201, JSON.stringify(tab.body));
      assert.equal(new Set(tabs.map((tab) => tab.body.orderNum)).size, 1, 'one order for the cart');
      assert.deepEqual(tabs.map((tab) => tab.body.status), ['pending', 'pending', 'pending']);

      await shop.payAtGateway(tabs[0]!.body.orderNum);
      await waitFor(() => shop.fulfilled.some((order) => order.orderNum === tabs[0]!.body.orderNum), 'onPaid');
      const later = await shop.createLink({ cart: id });
      assert.equal(later.status, 201);
      assert.deepEqual([later.body.orderNum, later.body.status], [tabs[0]!.body.orderNum, 'paid'], 'the paid order, to show, not a second payment');
      assert.equal(later.headers.get('idempotent-replayed'), 'true');
      const order = (await shop.router.getOrder(later.body.orderNum))!;
      assert.deepEqual([order.reference, order.duplicateOf], [id, null]);
    });

    test('a second request for the same cart never changes what the first stored (its returnTo)', async () => {
      const id = cart();
      const first = await shop.createLink({ cart: id, returnTo: `${shop.merchantUrl}/checkout/first` });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      const second = await shop.createLink({ cart: id, returnTo: `${shop.merchantUrl}/elsewhere/second` });
      assert.equal(second.status, 201, JSON.stringify(second.body));
      assert.equal(second.body.orderNum, first.body.orderNum, 'one order for the cart');
      assert.equal((await shop.stored(first.body.orderNum))!.returnTo, `${shop.merchantUrl}/checkout/first`);
    });

    test('another amount or another method for the same cart is another order', async () => {
      const id = cart();
      const one = await shop.createLink({ cart: id });
      const more = await shop.createLink({ cart: id, quantity: 2 });
      const bca = await shop.createLink({ cart: id, method: 'VA_BCA' });
      const bcaAgain = await shop.createLink({ cart: id, method: 'VA_BCA' });
      assert.equal(new Set([one.body.orderNum, more.body.orderNum, bca.body.orderNum]).size, 3);
      assert.equal(bcaAgain.body.orderNum, bca.body.orderNum);
    });

    test('POST /va: asking again for the same cart and method gives the same number', async () => {
      const id = cart();
      const first = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', cart: id, idempotencyKey: newKey() });
      const again = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', cart: id, idempotencyKey: newKey() });
      assert.equal(first.status, 201, JSON.stringify(first.body));
      assert.deepEqual([again.body.orderNum, again.body.vaNumber, again.body.status], [first.body.orderNum, first.body.vaNumber, 'pending']);
      const bca = await shop.post('/va', { item: 'kopi', method: 'VA_BCA', cart: id, idempotencyKey: newKey() });
      assert.notEqual(bca.body.vaNumber, first.body.vaNumber, 'another method is another number');
    });

    test('two paid orders of one cart: the second onPaid is told (duplicateOf) and an event says so', async () => {
      const id = cart();
      const bca = await shop.createLink({ cart: id, method: 'VA_BCA' });
      const bni = await shop.createLink({ cart: id, method: 'VA_BNI' });
      await shop.payAtGateway(bca.body.orderNum);
      await waitFor(() => shop.fulfilled.some((order) => order.orderNum === bca.body.orderNum), 'first onPaid');
      await shop.payAtGateway(bni.body.orderNum);
      const second = await waitFor(() => shop.fulfilled.find((order) => order.orderNum === bni.body.orderNum), 'second onPaid');
      assert.equal(second.duplicateOf, bca.body.orderNum);
      assert.equal(shop.fulfilled.find((order) => order.orderNum === bca.body.orderNum)!.duplicateOf, null);
      assert.deepEqual(shop.eventsNamed('order.duplicate_paid').filter((event) => event.reference === id), [
        { orderNum: bni.body.orderNum, duplicateOf: bca.body.orderNum, reference: id, payMoney: String(CATALOGUE.kopi!.price) },
      ]);
      assert.equal((await shop.router.getOrder(bni.body.orderNum))!.duplicateOf, bca.body.orderNum);
    });

    test('a number (<pay-va>) and a link (<pay-button>) for one cart: once one is paid, the other says so, no third order is made, and paying it anyway says "twice"', async () => {
      const id = cart();
      const numberKey = newKey();
      const number = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', cart: id, idempotencyKey: numberKey });
      const link = await shop.createLink({ cart: id });
      assert.equal(number.status, 201, JSON.stringify(number.body));
      assert.equal(link.status, 201, JSON.stringify(link.body));
      assert.notEqual(number.body.orderNum, link.body.orderNum, 'a number and a link are two orders');
      const numberStatus = async () => (await shop.status(number.body.orderNum, number.body.statusToken)).body;
      assert.equal((await numberStatus()).paidWith, undefined, 'nothing paid yet');

      await shop.payAtGateway(link.body.orderNum);
      await waitFor(() => shop.fulfilled.some((order) => order.orderNum === link.body.orderNum), 'onPaid of the link');
      const open = await numberStatus();
      assert.deepEqual([open.status, open.paidWith], ['pending', link.body.orderNum], 'the number: still open at the gateway, paid with the link');
      const paidLink = (await shop.status(link.body.orderNum, link.body.statusToken)).body;
      assert.deepEqual([paidLink.status, paidLink.paidWith, paidLink.duplicateOf], ['paid', undefined, undefined]);

      // Asking again: a link gets the paid link; a number (another kind) is refused, naming it, in the customer's language.
      const again = await shop.createLink({ cart: id, method: 'VA_BNI' });
      assert.deepEqual([again.status, again.body.orderNum, again.body.status], [201, link.body.orderNum, 'paid']);
      for (const [lang, words] of [[undefined, /^This purchase is paid already \(order \w+\)\. There is nothing more to pay\.$/], ['id', /^Pembelian ini sudah dibayar \(pesanan \w+\)\./]] as const) {
        const refused = await shop.post('/va', { item: 'kopi', method: 'VA_BCA', cart: id, idempotencyKey: newKey(), ...(lang ? { lang } : {}) });
        assert.equal(refused.status, 409, JSON.stringify(refused.body));
        assert.deepEqual([refused.body.error.code, refused.body.error.retryable], ['already_paid', false]);
        assert.match(refused.body.error.message, words);
        assert.ok(refused.body.error.message.includes(link.body.orderNum), 'names the order that paid');
      }

      // The number's own element asks again with its key: the purchase is paid, nothing reopens.
      const sameKey = await shop.post('/va', { item: 'kopi', method: 'VA_MANDIRI', cart: id, idempotencyKey: numberKey });
      assert.deepEqual([sameKey.status, sameKey.body.error?.code], [409, 'already_paid']);

      // The customer transfers to the number anyway: paid twice, and the number's answer says so.
      await shop.payAtGateway(number.body.orderNum);
      await waitFor(async () => (await numberStatus()).status === 'paid', 'the number paid');
      assert.deepEqual([(await numberStatus()).duplicateOf, (await numberStatus()).paidWith], [link.body.orderNum, undefined]);
      assert.equal((await shop.router.getOrder(number.body.orderNum))!.duplicateOf, link.body.orderNum);
    });

    test('a reference that is not an id is quote_invalid, naming the field', async () => {
      for (const bad of ['', ' cart', 'cart 1', 'x'.repeat(65), 'cart\n1', '../etc', '-leading-dash']) {
        const answer = await shop.createLink({ cart: bad });
        assert.equal(answer.status, 500, bad);
        assert.equal(answer.body.error.code, 'quote_invalid');
        assert.match(answer.body.error.message, /reference: must be the purchase's id/);
      }
    });
  });
}
