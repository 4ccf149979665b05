/**
 * One true outcome, in Chromium against the real demo (plug-in + sandbox gateway): the sequences
 * that used to leave a paid order shown as cancelled or unclaimed, or make a second order for one
 * cart, and the return page in a window another site opened.
 *
 * The rules they check (packages/pay-button/README.md, "One true outcome"):
 * 1. a closed payment page is `pay-pending` when the order can still be paid without it (a method
 *    was chosen), else `pay-cancel`; either way the attempt is kept (the next click reopens the same
 *    order) and watched, so a payment that arrives anyway still ends paid;
 * 2. a return for an order this page started is always claimed, even after Back and Forward, with
 *    and without the bfcache;
 * 3. an attempt survives its element (a re-render) and a reload: the next click for the same cart
 *    pays the same order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page, Response } from 'playwright-core';
import {
  addToCart, buttonState, countBfcacheRestores, launchChromium, newestOrderStatus, openShop, restoredFromBfcache, sandbox, screenshot,
  type Session,
} from './support.ts';

let browser: Browser;
/** Chromium with its back/forward cache on (playwright-core turns it off by default). */
let bfcacheBrowser: Browser;
before(async () => {
  browser = await launchChromium();
  bfcacheBrowser = await launchChromium({ bfcache: true });
});
after(async () => {
  await browser?.close();
  await bfcacheBrowser?.close();
});

const PAID = /Paid: order \w+/;

async function withShop(run: (session: Session) => Promise<void>, on = browser, beforeLoad?: (page: Page) => Promise<void>): Promise<void> {
  const session = await openShop(on, {}, beforeLoad);
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

async function payAtGateway(session: Pick<Session, 'demo'>, orderNum: string): Promise<void> {
  const order = await session.demo.shop.payments.getOrder(orderNum);
  assert.ok(order?.platOrderNum, 'the gateway knows the order');
  await sandbox(session.demo, `orders/${order.platOrderNum}/pay`);
}

/**
 * Resolves once the page has had `times` answers about an order from the plug-in: the element's
 * check after a load or a Back asks twice. Call it before what makes the page load.
 */
function statusAnswers(page: Page, times = 2): Promise<void> {
  let seen = 0;
  return new Promise((resolve) => {
    const count = (response: Response) => {
      if (!new URL(response.url()).pathname.startsWith('/pay/orders/') || ++seen < times) return;
      page.off('response', count);
      resolve();
    };
    page.on('response', count);
  });
}

/** Clicks Pay and returns the popup, on the hosted page. */
async function openPopup(page: Page): Promise<Page> {
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#pay button').click()]);
  await popup.waitForURL(/\/pay\?orderNum=/);
  return popup;
}

/**
 * After the popup closed with a method chosen: the button says pending (never cancelled), the
 * customer pays at the ATM, and the page turns paid; one order, one sale. Returns the order.
 */
async function pendingThenPaidAtTheAtm(page: Page, demo: Session['demo']): Promise<{ orderNum: string }> {
  assert.equal(await buttonState(page, ['pending', 'cancelled', 'error']), 'pending');
  await page.locator('#pay-result').filter({ hasText: /awaits your payment/ }).waitFor();
  const [order] = await orders(page);
  assert.ok(order);
  await payAtGateway({ demo }, order.orderNum);
  await page.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 40_000 });
  assert.equal(await page.locator('#pay').getAttribute('state'), 'paid');
  assert.equal((await orders(page)).length, 1);
  assert.equal(demo.shop.store.sales(), 1);
  return order;
}

describe('one true outcome', () => {
  it('popup closed with a method chosen (here by the shop): pay-pending, never cancelled, and the page turns paid when the customer pays at the ATM', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      await page.locator('#pay').evaluate((button) => button.setAttribute('method', 'VA_BCA'));
      const popup = await openPopup(page);
      await popup.getByText(/\d{10,}/).first().waitFor();
      // To the ATM: the customer closes the window.
      await popup.close();
      await pendingThenPaidAtTheAtm(page, demo);
    }));

  it('popup closed after choosing a method on the payment page: pay-pending, never cancelled, and the page turns paid when the customer pays at the ATM; one order', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const popup = await openPopup(page);
      await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
      await popup.getByText(/\d{10,}/).first().waitFor();
      await popup.close();
      // The status poll asks the gateway, which knows the method the customer picked.
      const order = await pendingThenPaidAtTheAtm(page, demo);
      assert.equal((await demo.shop.payments.getOrder(order.orderNum))?.method, 'VA_BCA');
    }));

  it('popup closed before a method was chosen: pay-cancel (nothing to pay without the page); the next click reopens the same order', () =>
    withShop(async ({ page }) => {
      await addToCart(page, 'Ceramic cup from Kasongan');
      const first = await openPopup(page);
      const url = first.url();
      await first.close();
      assert.equal(await buttonState(page, ['pending', 'cancelled', 'error']), 'cancelled');
      await page.locator('#pay-result').filter({ hasText: 'Payment not started. Nothing was charged; your cart is still here.' }).waitFor();
      const again = await openPopup(page);
      assert.equal(again.url(), url, 'the same order, on the same payment page');
      assert.equal((await orders(page)).length, 1, 'one order for the cart');
      await again.close();
    }));

  it('a popup attempt survives a reload: the next click for the same cart reopens the same order, and its payment ends paid', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Jasmine tea, 100 g');
      const popup = await openPopup(page);
      const url = popup.url();
      await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
      await popup.getByText(/\d{10,}/).first().waitFor();
      await popup.close();
      await buttonState(page, ['pending', 'cancelled']);
      const asked = statusAnswers(page);
      await page.reload();
      await asked;
      // The attempt is picked up again: pending, or (with no method the plug-in knows of) quietly
      // ready to reopen it; never an error, never a second order.
      const state = await buttonState(page, ['pending', 'idle', 'error']);
      assert.notEqual(state, 'error');
      const again = await openPopup(page);
      assert.equal(again.url(), url, 'the same order, on the same payment page');
      assert.equal((await orders(page)).length, 1, 'one order for the cart');
      await again.getByRole('button', { name: 'Simulate payment' }).click();
      await page.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 30_000 });
      assert.equal(demo.shop.store.sales(), 1);
    }));

  for (const bfcache of [true, false]) {
    it(`full page: Back from the hosted page, Forward, pay, and the return is claimed (${bfcache ? 'with' : 'without'} the bfcache)`, () =>
      withShop(
        async ({ page, demo }) => {
          await addToCart(page, 'Batik tulis shirt');
          await page.getByLabel('Full page').check();
          await page.locator('#pay button').click();
          await page.waitForURL(/\/pay\?orderNum=/);
          const asked = statusAnswers(page);
          // A page shown again from the bfcache fires no load event: wait for the commit only.
          await page.goBack({ waitUntil: 'commit' });
          await page.waitForURL((url) => url.origin === demo.shopUrl, { waitUntil: 'commit' });
          await asked;
          // Nothing was chosen on the payment page yet: nothing to say, the attempt is kept.
          assert.equal(await buttonState(page, ['idle', 'pending', 'cancelled', 'error']), 'idle');
          assert.equal(await page.locator('#pay-result').innerText(), '');
          assert.equal(await restoredFromBfcache(page), bfcache ? 1 : 0, bfcache ? 'the page came from the bfcache' : 'a fresh load');
          await page.goForward({ waitUntil: 'commit' });
          await page.waitForURL(/\/pay\?orderNum=/, { waitUntil: 'commit' });
          await page.getByRole('button', { name: 'QRIS', exact: true }).click();
          await page.getByRole('button', { name: 'Simulate payment' }).click();
          await page.waitForURL((url) => url.origin === demo.shopUrl && !url.pathname.startsWith('/pay'), { timeout: 20_000 });
          await page.locator('#pay-result').filter({ hasText: PAID }).waitFor({ timeout: 20_000 });
          assert.equal(await page.locator('#pay').getAttribute('state'), 'paid');
          assert.doesNotMatch(page.url(), /tombolbayar_order/, 'the parameter is claimed and removed');
          assert.equal(await page.locator('#cart-empty').isVisible(), true, 'the cart is emptied');
          await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
          assert.equal((await orders(page)).length, 1);
          assert.equal(demo.shop.store.sales(), 1);
        },
        bfcache ? bfcacheBrowser : browser,
        async (page) => {
          await countBfcacheRestores(page);
          // An unload handler keeps Chromium from keeping the page in the bfcache.
          if (!bfcache) await page.addInitScript(() => addEventListener('unload', () => {}));
        },
      ));
  }

  it('an element replaced mid-attempt (a framework re-render), then a click: one order, one popup, the new element ends paid and the old one says nothing', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Jasmine tea, 100 g');
      let popups = 0;
      page.on('popup', () => void (popups += 1));
      const popup = await openPopup(page);
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
