/**
 * What the customer is told (issue 20), in Chromium against the real demo, at 390 px and 1280 px,
 * in English and Indonesian: one language from the shop to the hosted page and back; after a
 * full-page return the paid outcome is in view and focused, the address bar is clean, and Back
 * and Forward run no second redirect nor leave `?tombolbayar_order=` behind; a plug-in whose gateway
 * is down says so plainly with nothing technical; every tap target at least 44 px; axe clean.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type Demo } from '../demo/src/demo.ts';
import { addToCart, launchChromium, screenshot } from './support.ts';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

const WORDS = {
  en: { addToCart: 'Add to cart', fullPage: 'Full page', paid: /^Paid: order \w+\. We are packing it\.$/, pay: 'Pay now' },
  id: { addToCart: 'Tambah ke keranjang', fullPage: 'Halaman penuh', paid: /^Pesanan \w+ sudah dibayar\. Pesanan Anda sedang kami siapkan\.$/, pay: 'Bayar sekarang' },
} as const;

let browser: Browser;
let demo: Demo;
let dataDir: string;
before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-truth-'));
  demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await demo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function shopPage(width: number, lang: 'en' | 'id'): Promise<Page> {
  // bypassCSP: axe is injected into the shop (its CSP forbids inline script).
  const context = await browser.newContext({ viewport: { width, height: 800 }, deviceScaleFactor: 1, bypassCSP: true, locale: 'en-US' });
  const page = await context.newPage();
  await page.goto(`${demo.shopUrl}/?lang=${lang}`);
  return page;
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** Visible controls smaller than 44 x 44 px (a radio counts with its label, as a tap lands on either). */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const small: string[] = [];
    const targets = [...document.querySelectorAll('button, select, summary, label:has(input), a[href]')];
    for (const shadowHost of document.querySelectorAll('pay-button, pay-va')) targets.push(...(shadowHost.shadowRoot?.querySelectorAll('button') ?? []));
    for (const el of targets) {
      const box = el.getBoundingClientRect();
      if (box.width === 0 || getComputedStyle(el).visibility === 'hidden') continue;
      if (box.height < 44 || box.width < 44) small.push(`${el.tagName.toLowerCase()} "${(el.textContent ?? '').trim().slice(0, 30)}" ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
    return small;
  });
}

for (const width of [390, 1280]) {
  for (const lang of ['en', 'id'] as const) {
    const words = WORDS[lang];
    describe(`the customer is told the truth at ${width} px in ${lang}`, () => {
      it('one language from the shop to the hosted page and back; the paid outcome in view and focused; Back and Forward leave no redirect nor parameter', async () => {
        const page = await shopPage(width, lang);
        try {
          assert.equal(await page.locator('html').getAttribute('lang'), lang);
          assert.equal((await page.locator('#pay').innerText()).trim().split('\n')[0], words.pay);
          assert.deepEqual(await smallTargets(page), [], 'tap targets under 44 px');
          assert.deepEqual(await axeViolations(page), [], 'axe on the shop');
          await page.getByRole('button', { name: `${words.addToCart}: Kopi Gayo, 250 g` }).click();
          await page.getByRole('radio', { name: words.fullPage, exact: true }).check();
          await page.locator('pay-button button').click();
          await page.waitForURL(/\/pay\?orderNum=/);
          // The hosted page was asked for the shop's language.
          assert.equal(new URL(page.url()).searchParams.get('lang'), lang);
          assert.equal(await page.locator('html').getAttribute('lang'), lang);
          const picker = page.getByRole('button', { name: 'BCA Virtual Account', exact: true });
          if (await picker.count()) await picker.click();
          await page.getByRole('button', { name: /Simulate payment|Simulasikan pembayaran/ }).click();
          await page.waitForURL((url) => url.origin === demo.shopUrl && !url.pathname.startsWith('/pay'), { timeout: 20_000 });
          const result = page.locator('#pay-result');
          await result.filter({ hasText: words.paid }).waitFor({ timeout: 20_000 });
          assert.match((await result.innerText()).trim(), words.paid);
          assert.doesNotMatch(page.url(), /tombolbayar_order/);
          // In view and focused: the customer sees the outcome without scrolling.
          const box = (await result.boundingBox())!;
          assert.ok(box.y >= 0 && box.y + box.height <= 800, `the outcome is off-screen at y = ${box.y}`);
          // The element takes focus; the demo then empties the cart (the button is disabled), so the page's message takes it.
          assert.ok(['pay', 'pay-result'].includes(await page.evaluate(() => document.activeElement?.id ?? '')), 'focus is not on the outcome');
          await screenshot(page, `truth-paid-${width}-${lang}`);
          // Back: the payment page's history entry; Forward: the shop again, with no parameter, still paid.
          await page.goBack();
          await page.goForward();
          await page.waitForURL((url) => url.origin === demo.shopUrl && !url.pathname.startsWith('/pay'), { timeout: 20_000 });
          await page.locator('#pay-result').filter({ hasText: words.paid }).or(page.locator('#cart-empty:visible')).first().waitFor();
          assert.doesNotMatch(page.url(), /tombolbayar_order/);
        } finally {
          await page.context().close();
        }
      });
    });
  }
}

describe('a plug-in whose gateway is down', () => {
  it('says so plainly in the shop\'s language, that nothing was charged, and offers a retry', async () => {
    const own = mkdtempSync(join(tmpdir(), 'tombolbayar-truth-down-'));
    const down = await startDemo({ dataDir: own, shopPort: 0, gatewayPort: 0, log: () => {} });
    const context = await browser.newContext({ viewport: { width: 390, height: 800 } });
    try {
      const page = await context.newPage();
      await page.goto(`${down.shopUrl}/?lang=id`);
      await page.getByRole('button', { name: 'Tambah ke keranjang: Kopi Gayo, 250 g' }).click();
      await down.gateway.close();
      await page.getByRole('radio', { name: 'Halaman penuh', exact: true }).check();
      await page.locator('pay-button button').click();
      const result = page.locator('#pay-result');
      await result.filter({ hasText: 'Tidak ada dana yang ditarik' }).waitFor({ timeout: 20_000 });
      const text = await result.innerText();
      assert.match(text, /^Layanan pembayaran tidak dapat dihubungi\. Tidak ada dana yang ditarik\. Silakan coba lagi\.$/);
      assert.doesNotMatch(text, /ECONN|gateway|_|\b5\d\d\b/i);
      assert.equal(await page.locator('#pay').getAttribute('state'), 'error');
      assert.equal(await page.locator('pay-button button').getAttribute('aria-disabled'), 'false', 'a retry is one click away');
    } finally {
      await context.close();
      await down.close().catch(() => {});
      rmSync(own, { recursive: true, force: true });
    }
  });
});
