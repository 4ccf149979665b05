/**
 * The customer's language by default (issue 32): a browser asking for Indonesian (or English), on
 * a shop page that says nothing (no `?lang=`, nothing chosen before), gets the shop, the element,
 * the hosted page and the plug-in's return page in that language, at 390 px and 1280 px.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { launchChromium, openShop, returnPageOf, type Session } from './support.ts';

let browser: Browser;
let session: Session;
before(async () => {
  browser = await launchChromium();
  session = await openShop(browser);
});
after(async () => {
  await session?.close();
  await browser?.close();
});

const CASES = [
  { locale: 'id-ID', width: 390, lang: 'id', add: 'Tambah ke keranjang', notStarted: 'Pembayaran belum dimulai' },
  { locale: 'id-ID', width: 1280, lang: 'id', add: 'Tambah ke keranjang', notStarted: 'Pembayaran belum dimulai' },
  { locale: 'en-GB', width: 390, lang: 'en', add: 'Add to cart', notStarted: 'Payment not started' },
] as const;

describe('a page that says nothing speaks the browser\'s language', () => {
  for (const { locale, width, lang, add, notStarted } of CASES) {
    it(`${locale} at ${width} px: the shop, <pay-button>, the hosted page and the return page in ${lang}`, async () => {
      const context = await browser.newContext({ locale, viewport: { width, height: 900 } });
      try {
        const page = await context.newPage();
        await page.goto(session.demo.shopUrl);
        assert.equal(await page.locator('html').getAttribute('lang'), lang);
        await page.getByRole('button', { name: `${add}: Kopi Gayo, 250 g` }).click();
        const element = await page.locator('#pay').evaluate((el) => (el as unknown as { currentLocale: string }).currentLocale);
        assert.equal(element, lang);

        const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#pay button').click()]);
        await popup.waitForURL(/\/pay\?orderNum=/);
        assert.equal(await popup.locator('html').getAttribute('lang'), lang);
        const returned = returnPageOf(popup);
        await popup.locator('#leave-link').click();
        const html = await returned;
        assert.match(html, new RegExp(`<html lang="${lang}">`));
        assert.match(html, new RegExp(`<h1>${notStarted}</h1>`));
      } finally {
        await context.close();
      }
    });
  }
});
