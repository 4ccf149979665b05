/**
 * The customer's paths through the demo shop, in Chromium, against the real plug-in and the real
 * sandbox gateway (cross-origin, as in production). Page waits use the contexts' default deadline
 * (`STATE_TIMEOUT_MS` of support.ts): a state, however late it comes on a loaded machine.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { eventually } from '@tombolbayar/test-support/eventually';
import type { Browser, Page } from 'playwright-core';
import { addToCart, launchChromium, newestOrderStatus, openShop, payOnHostedPage, sandbox, screenshot, type Session } from './support.ts';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const PAID = /Paid: order \w+/;

/** The element's own status line is shown (the page hides it once the outcome is the page's to say). */
const statusShown = (page: Page, id: string) =>
  page.locator(`#${id}`).evaluate((element) => getComputedStyle(element.shadowRoot!.querySelector('[part=status]')!).display !== 'none');

async function withShop(options: Parameters<typeof openShop>[1], run: (session: Session) => Promise<void>): Promise<void> {
  const session = await openShop(browser, options);
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

async function clickPay(page: Page): Promise<void> {
  await page.locator('pay-button button').click();
}

describe('checkout in the demo shop', () => {
  it('popup flow ends paid, and the order list turns paid', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await payOnHostedPage(popup);
      await popup.waitForEvent('close');
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
      assert.equal(await page.locator('pay-button').getAttribute('state'), 'paid');
      assert.equal(demo.shop.store.sales(), 1);
      await screenshot(page, 'popup-paid');
    }));

  it('redirect flow (mode="redirect") ends paid back on the shop page', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Batik tulis shirt');
      await page.getByLabel('Full page').check();
      await clickPay(page);
      await payOnHostedPage(page, 'QRIS');
      await page.waitForURL((url) => url.origin === demo.shopUrl);
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
      await screenshot(page, 'redirect-paid');
    }));

  it('a blocked popup falls back to a full-page redirect and still ends paid', () =>
    withShop({}, async ({ page, demo }) => {
      await page.addInitScript(() => {
        window.open = () => null;
      });
      await page.reload();
      const fallback = page.evaluate(
        () => new Promise<string>((resolve) => document.addEventListener('pay-fallback', (event) => resolve((event as CustomEvent).detail.reason))),
      );
      await addToCart(page, 'Jasmine tea, 100 g');
      await clickPay(page);
      assert.equal(await fallback, 'popup-blocked');
      await payOnHostedPage(page, 'DANA');
      await page.waitForURL((url) => url.origin === demo.shopUrl);
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      await screenshot(page, 'fallback-paid');
    }));

  it('the method picked on the hosted page is the one the order is paid with', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Toraja, 1 kg');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      await popup.getByRole('button', { name: 'Mandiri Virtual Account' }).click();
      await popup.getByText(/\d{10,}/).first().waitFor();
      await screenshot(popup, 'hosted-page-mandiri');
      await popup.getByRole('button', { name: 'Simulate payment' }).click();
      await popup.waitForEvent('close');
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
      const row = page.locator('#order-rows tr').first();
      // The method table's display name, never the raw code.
      assert.match(await row.innerText(), /Mandiri Virtual Account/);
      assert.doesNotMatch(await row.innerText(), /VA_MANDIRI/);
      assert.equal(demo.shop.store.sales(), 1);
    }));

  it('expiry through the sandbox clock ends expired', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      const hostedUrl = popup.url();
      await sandbox(demo, 'clock/advance', { minutes: 7201 });
      // The shop watches the order while its popup is open: the expiry shows here, and the popup goes.
      await page.locator('#pay-result').filter({ hasText: /time to pay order \S+ has run out\. Nothing was charged\./ }).waitFor();
      if (!popup.isClosed()) await popup.waitForEvent('close');
      const hosted = await page.context().newPage();
      await hosted.goto(hostedUrl);
      await hosted.getByText(/expired|kedaluwarsa/i).first().waitFor();
      await screenshot(hosted, 'hosted-page-expired');
      await hosted.close();
      await newestOrderStatus(page).filter({ hasText: 'expired' }).waitFor();
      assert.equal(demo.shop.store.sales(), 0);
      await screenshot(page, 'expired');
    }));

  it('closing the popup before choosing a method cancels (nothing can be paid without the page), nothing is sold, and Pay reopens the same order', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Ceramic cup from Kasongan');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      const url = popup.url();
      await popup.close();
      await page.locator('#pay-result').filter({ hasText: 'Payment not started. Nothing was charged; your cart is still here.' }).waitFor();
      assert.equal(await page.locator('pay-button').getAttribute('state'), 'cancelled');
      assert.equal(demo.shop.store.sales(), 0);
      await screenshot(page, 'closed-cancelled');
      const [again] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await again.waitForURL(/\/pay\?orderNum=/);
      assert.equal(again.url(), url, 'the same order');
      assert.equal(await page.locator('#order-rows tr').count(), 1);
    }));

  it("the shop's notify endpoint failing at first still ends paid after the gateway's retries", () =>
    withShop({ failFirstNotifications: 2 }, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await payOnHostedPage(popup);
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
      // The gateway keeps the log: two refused attempts, then the acknowledged one.
      const delivered = await eventually(async () => {
        const log = (await (await fetch(`${demo.gatewayUrl}/sandbox/deliveries?orderNum=${orderNum}`)).json()) as {
          deliveries: { state: string; attempts: { httpStatus: number | null }[] }[];
        };
        return log.deliveries[0]?.state === 'delivered' ? log.deliveries[0] : undefined;
      }, 60_000, 'the notification delivered');
      assert.deepEqual(delivered.attempts.map((attempt) => attempt.httpStatus), [500, 500, 200]);
      assert.equal(demo.shop.store.sales(), 1);
    }));

  it('a VA shown inline on the shop page ends paid when the customer transfers', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Toraja, 1 kg');
      await page.getByText('Or get a payment number right here').click();
      await page.getByLabel('Payment method').selectOption('VA_BNI');
      await page.locator('pay-va button').first().click();
      await page.locator('pay-va').and(page.locator('[state="pending"]')).waitFor();
      const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
      const order = await demo.shop.payments.getOrder(orderNum);
      assert.ok(order?.vaNumber, 'the VA number is known');
      await page.locator('pay-va').getByText(order.vaNumber!).first().waitFor();
      await screenshot(page, 'va-inline-pending');
      await sandbox(demo, `orders/${order.platOrderNum}/pay`);
      // Only the paid panel: the number, its copy button and the steps are gone.
      await page.locator('pay-va').getByText('Payment received').waitFor();
      assert.equal(await page.locator('pay-va').getByText(order.vaNumber!).count(), 0);
      assert.equal(await page.locator('#va-result').innerText(), '', 'said once, by the paid panel');
      await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
      await screenshot(page, 'va-inline-paid');
    }));

  it('one message per outcome: an expired or failed <pay-va> order is said by its panel only, an expired <pay-button> order by the page only', () =>
    withShop({}, async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      await page.getByText('Or get a payment number right here').click();
      for (const [end, state, title] of [['expire', 'expired', 'This payment number has expired'], ['fail', 'failed', 'The payment failed']] as const) {
        await page.locator('#pay-va button').first().click();
        await page.locator('#pay-va[state="pending"]').waitFor();
        const orderNum = await page.evaluate(() => (document.getElementById('pay-va') as unknown as { order: { orderNum: string } }).order.orderNum);
        const order = await demo.shop.payments.getOrder(orderNum);
        await sandbox(demo, `orders/${order!.platOrderNum}/${end}`);
        await page.locator('#pay-va').getByText(title).waitFor();
        assert.equal(await page.locator('#va-result').innerText(), '', `${end}: said once, by the panel`);
        assert.equal(await statusShown(page, 'pay-va'), false, `${end}: the element's status line is hidden`);
        await screenshot(page, `va-inline-${state}`);
      }

      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
      await sandbox(demo, `orders/${(await demo.shop.payments.getOrder(orderNum))!.platOrderNum}/expire`);
      await popup.close();
      await page.locator('#pay-result').filter({ hasText: `The time to pay order ${orderNum} has run out. Nothing was charged.` }).waitFor();
      assert.equal(await statusShown(page, 'pay'), false, 'said once, by the page');
    }));

  it('cleared when the cart changes: an ended outcome goes, an order that can still be paid stays watched and is said to be open', () =>
    withShop({}, async ({ page, demo }) => {
      // Paid, then the customer shops again: the old "Paid" goes, and the button sells again.
      await addToCart(page, 'Kopi Gayo, 250 g');
      const [popup] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await payOnHostedPage(popup);
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor();
      await addToCart(page, 'Jasmine tea, 100 g');
      assert.equal(await page.locator('#pay-result').innerText(), '');
      assert.equal(await page.locator('#pay').getAttribute('state'), 'idle');

      // A VA the customer may be paying at the ATM: the cart changes, the order stays watched.
      await page.locator('#pay').evaluate((button) => button.setAttribute('method', 'VA_BCA'));
      const [atm] = await Promise.all([page.waitForEvent('popup'), clickPay(page)]);
      await atm.getByText(/\d{10,}/).first().waitFor();
      await atm.close();
      await page.locator('#pay-result').filter({ hasText: 'awaits your payment' }).waitFor();
      const pending = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
      await addToCart(page, 'Kopi Toraja, 1 kg');
      await page.locator('#pay-result').filter({ hasText: `Order ${pending}, for your cart as it was, is still open` }).waitFor();
      assert.equal(await page.locator('#pay').getAttribute('state'), 'pending');
      await screenshot(page, 'cart-changed-order-still-open');
      await sandbox(demo, `orders/${(await demo.shop.payments.getOrder(pending))!.platOrderNum}/pay`);
      await page.locator('#pay-result').filter({ hasText: `Paid: order ${pending}, your earlier cart.` }).waitFor();
      assert.equal(await page.locator('#cart-empty').isVisible(), false, 'the cart as it is now stays');
      assert.equal(await page.locator('#pay').getAttribute('state'), 'idle', 'and Pay is ready for it');

      // A <pay-va> number on display: it stays after a change of the cart, and a new one is one click away.
      await page.getByText('Or get a payment number right here').click();
      await page.locator('#pay-va button').first().click();
      await page.locator('#pay-va[state="pending"]').waitFor();
      const vaOrder = (await page.evaluate(() => (document.getElementById('pay-va') as unknown as { order: { orderNum: string } }).order.orderNum));
      await page.getByRole('button', { name: 'Remove one Kopi Toraja, 1 kg' }).click();
      await page.locator('#va-result').filter({ hasText: `The number above is for order ${vaOrder}, your cart as it was.` }).waitFor();
      assert.equal(await page.locator('#pay-va').getAttribute('state'), 'pending', 'the number stays on screen');
      await page.getByRole('button', { name: 'Get a number for this cart' }).click();
      await page.waitForFunction((old) => {
        const va = document.getElementById('pay-va') as unknown as { order?: { orderNum: string }; state: string };
        return va.state === 'pending' && va.order!.orderNum !== old;
      }, vaOrder);
      assert.equal(await page.locator('#va-result').innerText(), '');
    }));
});
