/**
 * One true outcome, in Chromium against the real demo (plug-in + sandbox gateway): the three
 * sequences that used to leave a paid order shown as cancelled or unclaimed, or make a second
 * order for one cart, and the return page in a window another site opened.
 *
 * The rules they check (packages/pay-button/README.md, "One true outcome"):
 * 1. once the payment page opened, a pending order may still be paid and is never reported as
 *    cancelled: it ends in `pay-pending`, and the element keeps watching it while the page is open;
 * 2. a return for an order this page started is always claimed, even after Back and Forward;
 * 3. an attempt survives its element: the next element for the same request takes it over.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addToCart, launchChromium, newestOrderStatus, openShop, sandbox, screenshot, type Session } from './support.ts';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

const PAID = /Paid: order \w+/;

async function withShop(run: (session: Session) => Promise<void>): Promise<void> {
  const session = await openShop(browser);
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

/** Orders the shop's plug-in holds, newest first (the shop's own list, as the page shows it). */
async function orders(page: Page): Promise<{ orderNum: string; status: string }[]> {
  return page.evaluate(async () => (await (await fetch('/api/orders', { cache: 'no-store' })).json()) as { orderNum: string; status: string }[]);
}

async function payAtGateway(session: Session, orderNum: string): Promise<void> {
  const order = await session.demo.shop.payments.getOrder(orderNum);
  assert.ok(order?.platOrderNum, 'the gateway knows the order');
  await sandbox(session.demo, `orders/${order.platOrderNum}/pay`);
}

describe('one true outcome', () => {
  it('popup closed after choosing a method: pay-pending, never cancelled, and the page turns paid when the customer pays at the ATM', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
      await popup.getByText(/\d{10,}/).first().waitFor();
      // To the ATM: the customer closes the window.
      await popup.close();
      await page.locator('pay-button[state="pending"]').waitFor({ timeout: 20_000 });
      await page.locator('#pay-result').filter({ hasText: /awaits payment/ }).waitFor();
      assert.doesNotMatch(await page.locator('#pay-result').innerText(), /cancelled/i);
      const [order] = await orders(page);
      assert.ok(order);
      await payAtGateway({ page, demo } as Session, order.orderNum);
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 30_000 });
      assert.equal(await page.locator('pay-button').getAttribute('state'), 'paid');
      assert.equal((await orders(page)).length, 1);
      assert.equal(demo.shop.store.sales(), 1);
    }));

  for (const bfcache of [true, false]) {
    it(`full page: Back from the hosted page, Forward, pay, and the return is claimed (${bfcache ? 'with' : 'without'} the bfcache)`, () =>
      withShop(async ({ page, demo }) => {
        if (!bfcache) {
          // An unload handler keeps Chromium from keeping the page in the bfcache.
          await page.addInitScript(() => addEventListener('unload', () => {}));
          await page.reload();
        }
        await addToCart(page, 'Batik tulis shirt');
        await page.getByLabel('Full page').check();
        await page.locator('pay-button button').click();
        await page.waitForURL(/\/pay\?orderNum=/);
        await page.goBack();
        await page.waitForURL((url) => url.origin === demo.shopUrl);
        await page.locator('pay-button[state="pending"]').waitFor({ timeout: 20_000 });
        await page.goForward();
        await page.waitForURL(/\/pay\?orderNum=/);
        await page.getByRole('button', { name: 'QRIS', exact: true }).click();
        await page.getByRole('button', { name: 'Simulate payment' }).click();
        await page.waitForURL((url) => url.origin === demo.shopUrl && !url.pathname.startsWith('/pay'), { timeout: 20_000 });
        await page.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 20_000 });
        assert.equal(await page.locator('pay-button').getAttribute('state'), 'paid');
        assert.doesNotMatch(page.url(), /paybutton_order/, 'the parameter is claimed and removed');
        assert.equal(await page.locator('#cart-empty').isVisible(), true, 'the cart is emptied');
        await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
        assert.equal((await orders(page)).length, 1);
        assert.equal(demo.shop.store.sales(), 1);
      }));
  }

  it('an element replaced mid-attempt (a framework re-render), then a click: one order, one popup, the new element ends paid and the old one says nothing', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Jasmine tea, 100 g');
      let popups = 0;
      page.on('popup', () => void (popups += 1));
      const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
      await popup.waitForURL(/\/pay\?orderNum=/);
      // The re-render: a new <pay-button> with the same attributes and properties takes the old one's place.
      await page.evaluate(() => {
        const old = document.querySelector('pay-button') as HTMLElement & { fields: unknown };
        const events: string[] = ((window as unknown as { oldEvents: string[] }).oldEvents = []);
        for (const name of ['pay-success', 'pay-pending', 'pay-failure', 'pay-cancel', 'pay-error']) old.addEventListener(name, () => events.push(name));
        const next = old.cloneNode(true) as HTMLElement & { fields: unknown };
        next.fields = old.fields;
        next.id = 'pay-next';
        old.replaceWith(next);
      });
      await page.locator('#pay-next[state="open"]').waitFor();
      // A customer's click (the button is aria-disabled while busy, which Playwright would wait out).
      await page.locator('#pay-next button').click({ force: true });
      await popup.getByRole('button', { name: 'DANA', exact: true }).click();
      await popup.getByRole('button', { name: 'Simulate payment' }).click();
      await popup.waitForEvent('close', { timeout: 20_000 });
      await page.locator('#pay-next[state="paid"]').waitFor({ timeout: 20_000 });
      assert.equal(popups, 1, 'one popup');
      assert.equal((await orders(page)).length, 1, 'one order for the cart');
      assert.deepEqual(await page.evaluate(() => (window as unknown as { oldEvents: string[] }).oldEvents), [], 'the detached element fired nothing');
      assert.equal(demo.shop.store.sales(), 1);
    }));

  it('a shop opened by another site, paying in full-page mode: the return page does not close the window, and the customer sees the outcome', () =>
    withShop(async ({ page, demo }) => {
      // localhost is another origin than the shop's 127.0.0.1: the "other site".
      const foreign = demo.shopUrl.replace('127.0.0.1', 'localhost');
      await page.goto(`${foreign}/`);
      const [shop] = await Promise.all([page.waitForEvent('popup'), page.evaluate((url) => void window.open(url, '_blank'), demo.shopUrl)]);
      await shop.waitForLoadState();
      await addToCart(shop, 'Kopi Gayo, 250 g');
      await shop.getByLabel('Full page').check();
      await shop.locator('pay-button button').click();
      await shop.waitForURL(/\/pay\?orderNum=/);
      await shop.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
      await shop.getByRole('button', { name: 'Simulate payment' }).click();
      await shop.waitForURL((url) => url.origin === demo.shopUrl && !url.pathname.startsWith('/pay'), { timeout: 20_000 });
      await shop.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 20_000 });
      assert.equal(shop.isClosed(), false, 'the window stays open');
      await screenshot(shop, 'opened-by-another-site-paid');
      await shop.close();
    }));
});
