/**
 * One cart, one payment, in Chromium against the demo shop, the real plug-in and the sandbox
 * gateway: the shop's tabs share the cart (and its id, the plug-in's `reference`), so two tabs
 * pressing Pay get one order, one payment ends it, and the other tab shows it paid. A `<pay-va>`
 * number survives a reload (its method too), and asking again for the same method, from another
 * tab, gives the same number. A number in one tab and the same cart paid by `<pay-button>` in
 * another: the number is withdrawn everywhere, and paying it anyway tells the shop to refund it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addToCart, launchChromium, openShop, sandbox, screenshot, type Session, type ShopView } from './support.ts';

/** The demo's words the journeys read, in each language of the shop. */
const WORDS = {
  en: {
    vaSummary: 'Or get a payment number right here',
    method: 'Payment method',
    simulate: 'Simulate payment',
    paidHere: /^Paid: order (\w+)\. We are packing it\.$/,
    paidOtherTab: (order: string) => `Paid: order ${order}, in another tab.`,
    paidTwice: (order: string) => `Paid twice (also ${order}): refund this one`,
  },
  id: {
    vaSummary: 'Atau dapatkan nomor pembayaran di sini',
    method: 'Metode pembayaran',
    simulate: 'Simulasikan pembayaran',
    paidHere: /^Pesanan (\w+) sudah dibayar\. Pesanan Anda sedang kami siapkan\.$/,
    paidOtherTab: (order: string) => `Pesanan ${order} sudah dibayar di tab lain.`,
    paidTwice: (order: string) => `Dibayar dua kali (juga ${order}): kembalikan yang ini`,
  },
} as const;
type Lang = keyof typeof WORDS;

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function withShop(run: (session: Session) => Promise<void>, view: ShopView = {}): Promise<void> {
  const session = await openShop(browser, {}, undefined, view);
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

/** Another tab of the same customer: the same localStorage, so the same cart (with its id). */
async function secondTab(page: Page, shopUrl: string, lang: Lang = 'en', product = 'Kopi Gayo'): Promise<Page> {
  const other = await page.context().newPage();
  await other.goto(`${shopUrl}/?lang=${lang}`);
  await other.locator('#cart-lines').getByText(product).waitFor();
  return other;
}

/** `tab` opens the payment page and leaves it without choosing a method: its element watches the order. */
async function leaveThePaymentPage(tab: Page): Promise<void> {
  const [popup] = await Promise.all([tab.waitForEvent('popup'), tab.locator('pay-button button').click()]);
  await popup.waitForURL(/\/pay\?orderNum=/);
  await popup.close();
  await tab.locator('#pay[state="cancelled"]').waitFor();
}

/** `tab` pays with `<pay-button>`: BCA chosen on the payment page, the payment simulated, the popup closed by its return. */
async function payWithTheButton(tab: Page, lang: Lang = 'en'): Promise<void> {
  const [popup] = await Promise.all([tab.waitForEvent('popup'), tab.locator('pay-button button').click()]);
  await popup.waitForURL(/\/pay\?orderNum=/);
  await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
  await popup.getByRole('button', { name: WORDS[lang].simulate }).click();
  await popup.waitForEvent('close', { timeout: 20_000 });
}

/** The order `tab` says it paid itself ("Paid: order X. We are packing it."), once it says so. */
async function saidPaidHere(tab: Page, lang: Lang = 'en'): Promise<string> {
  const paid = WORDS[lang].paidHere;
  await tab.locator('#pay-result').filter({ hasText: paid }).waitFor();
  return paid.exec((await tab.locator('#pay-result').innerText()).trim())![1]!;
}

/** The number `<pay-va id="pay-va">` shows, once it shows one. */
async function shownNumber(page: Page): Promise<string> {
  await page.locator('#pay-va[state="pending"]').waitFor();
  return page.evaluate(() => (document.getElementById('pay-va') as unknown as { order: { vaNumber: string } }).order.vaNumber);
}

describe('one cart, one payment', () => {
  it('two tabs with one cart press Pay: one order, paid once, and the other tab shows it paid', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const other = await secondTab(page, demo.shopUrl);

      const [popupA] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
      await popupA.waitForURL(/\/pay\?orderNum=/);
      const [popupB] = await Promise.all([other.waitForEvent('popup'), other.locator('pay-button button').click()]);
      await popupB.waitForURL(/\/pay\?orderNum=/);
      assert.equal(popupB.url(), popupA.url(), 'the second tab was given the first tab\'s order');

      await popupA.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
      await popupA.getByRole('button', { name: 'Simulate payment' }).click();
      await popupA.waitForEvent('close', { timeout: 20_000 });
      await page.locator('#pay-result').filter({ hasText: /Paid: order \w+/ }).waitFor();
      const orderNum = /Paid: order (\w+)/.exec(await page.locator('#pay-result').innerText())![1]!;

      // The other tab shows it paid, and has nothing left to pay.
      // Said by the tab's own element (it watches the order while its popup is open) or by the
      // other tab's message, whichever comes first.
      await other.locator('#pay-result').filter({ hasText: new RegExp(`^Paid: order ${orderNum}(, in another tab)?\\.`) }).waitFor({ timeout: 20_000 });
      await other.locator('#cart-empty').waitFor();
      await screenshot(other, 'one-cart-other-tab-paid');

      assert.equal(demo.shop.store.sales(), 1, 'onPaid once: one sale');
      await page.locator('#order-rows tr').first().locator('td.status').filter({ hasText: 'paid' }).waitFor();
      assert.equal(await page.locator('#order-rows tr').count(), 1, 'one order for the cart');
      assert.equal((await demo.shop.payments.getOrder(orderNum))?.status, 'paid');
    }));

  it('the tab that paid says "Paid"; only the other tab says "paid in another tab", whichever learns first', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const other = await secondTab(page, demo.shopUrl);
      await leaveThePaymentPage(other);

      await payWithTheButton(page);
      const orderNum = await saidPaidHere(page);
      await other.locator('#pay-result').filter({ hasText: `Paid: order ${orderNum}, in another tab. We are packing it.` }).waitFor({ timeout: 30_000 });
      // Whatever the other tab heard or said since, the paying tab still says it paid.
      assert.equal((await page.locator('#pay-result').innerText()).trim(), `Paid: order ${orderNum}. We are packing it.`);
      assert.equal(demo.shop.store.sales(), 1);
    }));

  it('the tab that paid learns last (the other emptied the shared cart first): it still says "Paid", and the other "paid in another tab"', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Gayo, 250 g');
      const other = await secondTab(page, demo.shopUrl);
      await leaveThePaymentPage(other);

      // The paying tab's status requests wait until the other tab has seen the payment.
      let release!: () => void;
      const otherSawIt = new Promise<void>((resolve) => (release = resolve));
      await page.route('**/pay/orders/*', async (route) => {
        await otherSawIt;
        await route.continue();
      });
      await payWithTheButton(page);
      await other.locator('#pay-result').filter({ hasText: /^Paid: order \w+/ }).waitFor();
      await page.locator('#cart-empty').waitFor();
      release();

      const orderNum = await saidPaidHere(page);
      await other.locator('#pay-result').filter({ hasText: `Paid: order ${orderNum}, in another tab. We are packing it.` }).waitFor({ timeout: 30_000 });
      assert.equal((await page.locator('#pay-result').innerText()).trim(), `Paid: order ${orderNum}. We are packing it.`);
      assert.equal(demo.shop.store.sales(), 1);
    }));

  for (const [width, lang] of [[390, 'id'], [1280, 'en']] as const) {
    const words = WORDS[lang];
    it(`a number in one tab, the same cart paid by <pay-button> in another: the number is withdrawn on every tab; paid anyway, the shop is told to refund it (${width} px, ${lang})`, () =>
      withShop(async ({ page, demo }) => {
        await addToCart(page, 'Kopi Gayo, 250 g', lang);
        await page.getByText(words.vaSummary).click();
        await page.getByLabel(words.method).selectOption('VA_MANDIRI');
        await page.locator('#pay-va button').first().click();
        const number = await shownNumber(page);
        const numberOrder = await page.evaluate(() => (document.getElementById('pay-va') as unknown as { order: { orderNum: string } }).order.orderNum);

        const other = await secondTab(page, demo.shopUrl, lang);
        await payWithTheButton(other, lang);
        const linkOrder = await saidPaidHere(other, lang);

        // The tab with the number: no number left to pay, whichever says it first (the page's
        // message from the paying tab, or the element's own "already paid" panel).
        const withdrawn = page.locator('#pay-result').filter({ hasText: words.paidOtherTab(linkOrder) }).or(page.locator('#pay-va[state="closed"]'));
        await withdrawn.first().waitFor({ timeout: 30_000 });
        await page.locator('#pay-va[state="pending"]').waitFor({ state: 'detached' });
        assert.ok(!(await page.locator('body').innerText()).includes(number), 'the number is no longer shown');
        await page.reload();
        await page.locator('#cart-empty').waitFor();
        assert.notEqual(await page.locator('#pay-va').getAttribute('state'), 'pending', 'a reload brings no number back');
        await screenshot(page, `one-cart-number-withdrawn-${width}-${lang}`);

        // The customer had written the number down and transfers to it anyway: paid twice, told.
        const stored = (await demo.shop.payments.getOrder(numberOrder))!;
        await sandbox(demo, `orders/${stored.platOrderNum}/pay`);
        await page.locator(`#order-rows tr[data-order-num="${numberOrder}"] td.status`).filter({ hasText: words.paidTwice(linkOrder) }).waitFor({ timeout: 30_000 });
        assert.equal((await demo.shop.payments.getOrder(numberOrder))?.duplicateOf, linkOrder);
        assert.equal(demo.shop.store.sales(), 1, 'one sale for the cart: the second payment is to refund');
        await screenshot(page, `one-cart-paid-twice-${width}-${lang}`);
      }, { width, height: 800, lang }));
  }

  it('a number survives a reload with its method, and asking again for that method gives the same number', () =>
    withShop(async ({ page, demo }) => {
      await addToCart(page, 'Kopi Toraja, 1 kg');
      await page.getByText('Or get a payment number right here').click();
      await page.getByLabel('Payment method').selectOption('VA_MANDIRI');
      await page.locator('#pay-va button').first().click();
      const number = await shownNumber(page);

      await page.reload();
      assert.equal(await shownNumber(page), number, 'the same number after a reload');
      assert.equal(await page.getByLabel('Payment method').inputValue(), 'VA_MANDIRI', 'the select follows the restored method');
      await page.locator('#pay-va').locator('[part=method]').filter({ hasText: 'Mandiri Virtual Account' }).waitFor();

      // Another tab of the same cart asks for Mandiri too: the same number, not a second one.
      const other = await page.context().newPage();
      await other.goto(demo.shopUrl);
      await other.getByText('Or get a payment number right here').click();
      await other.getByLabel('Payment method').selectOption('VA_MANDIRI');
      await other.locator('#pay-va button').first().click();
      assert.equal(await shownNumber(other), number, 'the same number from another tab');
      // And after a reset in the first tab (the customer asks again for the same method).
      await page.evaluate(() => (document.getElementById('pay-va') as unknown as { reset(): void; create(): boolean }).reset());
      await page.locator('#pay-va button').first().click();
      assert.equal(await shownNumber(page), number, 'asking again gives the same number');
      assert.equal(await page.locator('#order-rows tr').count(), 1, 'one order');
      await screenshot(page, 'one-cart-va-restored');

      const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
      const order = (await demo.shop.payments.getOrder(orderNum))!;
      await sandbox(demo, `orders/${order.platOrderNum}/pay`);
      // Both tabs show it paid: the number's own paid panel, or the page's word (the tab that
      // learnt it first tells the other, whose cart is then empty).
      for (const tab of [page, other]) {
        const paid = tab.locator('#pay-va').getByText('Payment received').or(tab.locator('#pay-result, #va-result').filter({ hasText: `Paid: order ${orderNum}` }));
        await paid.first().waitFor({ timeout: 30_000 });
      }
      assert.equal(demo.shop.store.sales(), 1);
      assert.equal((await demo.shop.payments.getOrder(orderNum))?.status, 'paid');
    }));
});
