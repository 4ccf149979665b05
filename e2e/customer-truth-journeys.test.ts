/**
 * What the customer is told across reloads, languages and a gateway that goes away (issue 20), in
 * Chromium against the real demo, at 390 px and 1280 px, with a browser asking for English:
 * - the shop's language from the shop to the hosted page (its item text too) and to the return
 *   page, in the popup and in the full-page flow;
 * - a reload while the popup is open: Pay finds that window again (never a second one on the same
 *   order), and paying in the window the reload orphaned ends in the shop (the window closes: it
 *   never becomes a second copy of the shop);
 * - pending with what to pay, where and by when, on the shop itself;
 * - a payment while the popup is open: on the shop within 2 s;
 * - a VA chosen, the gateway down, the popup closed: "not confirmed yet" (never "cancelled"),
 *   corrected once the gateway is back;
 * - a reload, Back and Forward after a full-page return: the outcome stays true, the payment page
 *   does not send the customer back a second time, no `?tombolbayar_order=` behind.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { createDemoGateway } from '../demo/src/demo.ts';
import { ARTIFACTS, addToCart, buttonState, launchChromium, newestOrderStatus, openShop, returnPageOf, sandbox, screenshot, type Session } from './support.ts';

type Lang = 'en' | 'id';

const WORDS = {
  en: {
    twoProducts: '2 products, Toko Kopi',
    fullPage: 'Full page',
    paid: /^Paid: order \w+\. We are packing it\.$/,
    paidStatus: 'Paid',
    returned: 'Payment received',
    transfer: /^Awaiting your payment\. .* Transfer Rp 121\.500 to BCA virtual account \d{8,} before .+\.$/,
    transferTea: /Transfer Rp 36\.500 to BCA virtual account \d{8,} before/,
    unconfirmed: /^Payment not confirmed yet\./,
    instructions: 'Show payment instructions',
    simulate: 'Simulate payment',
  },
  id: {
    twoProducts: '2 produk, Toko Kopi',
    fullPage: 'Halaman penuh',
    paid: /^Pesanan \w+ sudah dibayar\. Pesanan Anda sedang kami siapkan\.$/,
    paidStatus: 'Lunas',
    returned: 'Pembayaran diterima',
    transfer: /^Menunggu pembayaran Anda\. .* Transfer Rp 121\.500 ke virtual account BCA \d{8,} sebelum .+\.$/,
    transferTea: /Transfer Rp 36\.500 ke virtual account BCA \d{8,} sebelum/,
    unconfirmed: /^Pembayaran belum terkonfirmasi\./,
    instructions: 'Lihat petunjuk pembayaran',
    simulate: 'Simulasikan pembayaran',
  },
} as const;

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

async function withShop(width: number, lang: Lang, run: (session: Session) => Promise<void>): Promise<void> {
  const session = await openShop(browser, {}, undefined, { width, height: 800, lang });
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

/** Clicks Pay and returns the popup, on the hosted page, and its order (the shop's list shows it: each test has a fresh shop). */
async function openPopup(page: Page): Promise<{ popup: Page; orderNum: string }> {
  const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#pay button').click()]);
  await popup.waitForURL(/\/pay\?orderNum=/);
  const row = page.locator('#order-rows tr[data-order-num]').first();
  await row.waitFor();
  return { popup, orderNum: (await row.getAttribute('data-order-num'))! };
}

/**
 * Reloads the shop and waits until its element picked the attempt of `orderNum` up again: it
 * asked for the order, found it open with no method chosen (so it says nothing), and stored it
 * again for the next click.
 */
async function reloadAndPickUp(page: Page, orderNum: string): Promise<void> {
  await page.reload();
  await page.waitForFunction(
    (order) => document.querySelector('#pay')?.getAttribute('state') === 'idle' && (sessionStorage.getItem('tombolbayar:attempts') ?? '').includes(order),
    orderNum,
  );
}


/** The element's own line (its live region), as the customer reads it. */
const statusLine = (page: Page) => page.locator('#pay [part=status]');

for (const [width, lang] of [[390, 'en'], [390, 'id'], [1280, 'en'], [1280, 'id']] as const) {
  const words = WORDS[lang];
  describe(`at ${width} px in ${lang}`, () => {
    it('the hosted page in the shop\'s language; a reload with the popup open, then Pay: that same window, no second one; pending says what to pay, where and by when', () =>
      withShop(width, lang, async ({ page, demo }) => {
        await addToCart(page, 'Kopi Gayo, 250 g', lang);
        await addToCart(page, 'Jasmine tea, 100 g', lang);
        const { popup, orderNum } = await openPopup(page);
        assert.equal(await popup.locator('html').getAttribute('lang'), lang);
        await popup.getByText(words.twoProducts, { exact: true }).waitFor();

        await reloadAndPickUp(page, orderNum);
        await page.locator('#pay button').click();
        // The attempt goes on in the window the reload left open.
        assert.equal(await buttonState(page, ['open', 'loading', 'error']), 'open');
        await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await popup.getByText(/\d{10,}/).first().waitFor();
        await popup.close();

        assert.equal(await buttonState(page, ['pending', 'cancelled', 'error']), 'pending');
        const line = statusLine(page);
        await line.filter({ hasText: words.transfer }).waitFor();
        assert.ok(await line.isVisible(), 'the instructions are on screen');
        assert.equal((await page.locator('#pay button').innerText()).trim(), words.instructions);
        await screenshot(page, `journey-pending-${width}-${lang}`);
        // docs/shop-pending-phone.png is the English one.
        if (width === 390) await page.locator('aside.checkout').screenshot({ path: join(ARTIFACTS, `journey-pending-checkout-${lang}.png`) });
        // One window was ever opened on this order: a second one would still be open now.
        assert.equal(page.context().pages().length, 1);

        const order = await demo.shop.payments.getOrder(orderNum);
        await sandbox(demo, `orders/${order!.platOrderNum}/pay`);
        await page.locator('#pay-result').filter({ hasText: words.paid }).waitFor({ timeout: 40_000 });
        assert.equal((await newestOrderStatus(page).innerText()).trim(), words.paidStatus);
      }));
  });
}

describe('while the popup is open', () => {
  for (const [width, lang] of [[390, 'id'], [1280, 'en']] as const) {
    it(`a payment there shows on the shop within 2 s, and the popup goes (${width} px, ${lang})`, () =>
      withShop(width, lang, async ({ page, demo }) => {
        await addToCart(page, 'Jasmine tea, 100 g', lang);
        const { popup, orderNum } = await openPopup(page);
        await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await popup.getByText(/\d{10,}/).first().waitFor();
        const closed = popup.waitForEvent('close');
        const order = await demo.shop.payments.getOrder(orderNum);
        await sandbox(demo, `orders/${order!.platOrderNum}/pay`);
        // Asked about every second while open: 2 s, and half a second more for a loaded test machine.
        await page.locator('#pay[state="paid"]').waitFor({ timeout: 2_500 });
        await page.locator('#pay-result').filter({ hasText: WORDS[lang].paid }).waitFor();
        await closed;
      }));
  }
});

for (const [width, lang] of [[390, 'id'], [1280, 'en']] as const) {
  const words = WORDS[lang];
  describe(`at ${width} px in ${lang}, the return page`, () => {
    it('paying in the window a reload orphaned: its return page speaks the shop\'s language, the window closes, and the shop says paid', () =>
      withShop(width, lang, async ({ page }) => {
        await addToCart(page, 'Jasmine tea, 100 g', lang);
        const { popup, orderNum } = await openPopup(page);
        await reloadAndPickUp(page, orderNum);
        const shopOrigin = new URL(page.url()).origin;
        const shopCopies: string[] = [];
        popup.on('framenavigated', (frame) => {
          if (frame === popup.mainFrame() && new URL(frame.url()).origin === shopOrigin && !frame.url().includes('/pay/')) shopCopies.push(frame.url());
        });
        const returned = returnPageOf(popup);
        const closed = popup.waitForEvent('close');
        await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await popup.getByRole('button', { name: words.simulate }).click();
        const html = await returned;
        assert.match(html, new RegExp(`<html lang="${lang}">`));
        assert.match(html, new RegExp(`<h1>${words.returned}</h1>`));
        await closed;
        assert.deepEqual(shopCopies, [], 'the window became a second copy of the shop');
        await page.locator('#pay-result').filter({ hasText: words.paid }).waitFor({ timeout: 20_000 });
      }));

    it('full page: the return page speaks the shop\'s language; after the return, a reload, Back and Forward keep the outcome true, run no second return and leave the address bar clean', () =>
      withShop(width, lang, async ({ page }) => {
        await addToCart(page, 'Jasmine tea, 100 g', lang);
        await page.getByRole('radio', { name: words.fullPage, exact: true }).check();
        await page.locator('#pay button').click();
        await page.waitForURL(/\/pay\?orderNum=/);
        const returned = returnPageOf(page);
        await page.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await page.getByRole('button', { name: words.simulate }).click();
        const html = await returned;
        assert.match(html, new RegExp(`<html lang="${lang}">`));
        assert.match(html, new RegExp(`<h1>${words.returned}</h1>`));
        await page.locator('#pay-result').filter({ hasText: words.paid }).waitFor({ timeout: 20_000 });
        await page.reload();
        await newestOrderStatus(page).filter({ hasText: words.paidStatus }).waitFor();
        assert.doesNotMatch(page.url(), /tombolbayar_order/);
        // Nothing is re-run: the element has no attempt left to pick up, and offers no second payment of it.
        assert.notEqual(await buttonState(page, ['idle', 'paid', 'error']), 'error');
        // Back: the paid payment page, which does not send the customer back a second time.
        await page.goBack();
        await page.waitForURL(/\/pay\?orderNum=/);
        assert.ok(await page.locator('.auto-return').isHidden(), 'the payment page counts down to a second return');
        await page.goForward();
        await newestOrderStatus(page).filter({ hasText: words.paidStatus }).waitFor();
        assert.doesNotMatch(page.url(), /tombolbayar_order/);
      }));

    it('a VA chosen, then the gateway down and the popup closed: pending, "not confirmed yet", never cancelled; corrected once the gateway is back', () =>
      withShop(width, lang, async ({ page, demo, dataDir }) => {
        await addToCart(page, 'Jasmine tea, 100 g', lang);
        // The shop learns nothing while the popup is open (a customer who picks and closes at once).
        await page.route('**/pay/orders/**', (route) => route.abort('internetdisconnected'));
        const { popup } = await openPopup(page);
        await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await popup.getByText(/\d{10,}/).first().waitFor();
        await demo.gateway.close();
        await page.unroute('**/pay/orders/**');
        await popup.close();
        assert.equal(await buttonState(page, ['pending', 'cancelled', 'error']), 'pending');
        await statusLine(page).filter({ hasText: words.unconfirmed }).waitFor();
        assert.doesNotMatch(await statusLine(page).innerText(), /ECONN|gateway|_|error|\(\d{3}\)/i);

        const back = await createDemoGateway(dataDir);
        try {
          await back.listen(Number(new URL(demo.gatewayUrl).port), '127.0.0.1');
          // The element watches on: once the plug-in can ask the gateway, the VA is said.
          await statusLine(page).filter({ hasText: words.transferTea }).waitFor({ timeout: 30_000 });
          assert.equal(await page.locator('#pay').getAttribute('state'), 'pending');
        } finally {
          await back.close();
        }
      }));
  });
}
