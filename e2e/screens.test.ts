/**
 * The customer's screens on phones (390 px and 320 px wide), in English and in Indonesian, in
 * Chromium against the real demo: the shop, the hosted page before a method is chosen and for
 * every method, `<pay-va>` for each kind of method and in its paid, expired and failed states,
 * `<pay-button>` idle, open, pending, refused (error) and paid, with nothing scrolling sideways and
 * no text clipped by its box; an axe check of the shop; and the QRIS image of `<pay-va>` scanned
 * (decoded from a screenshot) back to the order's payload, CRC valid.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { hasValidCrc } from '@tombolbayar/gateway/internal';
import { METHOD_CODES, METHODS } from '@tombolbayar/protocol';
import jsqr from 'jsqr';
import { PNG } from 'pngjs';
import type { Browser, Page } from 'playwright-core';
import { startDemo, type Demo } from '../demo/src/demo.ts';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ARTIFACTS, addToCart, launchChromium, sandbox, screenshot } from './support.ts';

/** jsQR's CommonJS export, typed as what it is: a function. */
const jsQR = jsqr as unknown as (data: Uint8ClampedArray, width: number, height: number) => { data: string } | null;
const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const WIDTHS = [390, 320] as const;
const LOCALES = ['en', 'id'] as const;
type Locale = (typeof LOCALES)[number];

let browser: Browser;
let demo: Demo;
let dataDir: string;
before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-screens-'));
  demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await demo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/**
 * A phone-sized page, `width` px wide, its browser set to `locale` (the hosted page follows
 * Accept-Language); `bypassCSP` only where axe is injected into the shop (its CSP forbids inline
 * script).
 */
async function phonePage(width = 390, locale: Locale = 'en', bypassCSP = false): Promise<Page> {
  const context = await browser.newContext({
    viewport: { width, height: 844 }, deviceScaleFactor: 1, isMobile: true, hasTouch: true, bypassCSP, locale: locale === 'id' ? 'id-ID' : 'en-US',
  });
  return context.newPage();
}

/**
 * A demo of its own for one test: the plug-in allows 20 new orders a minute per client, and every
 * order here comes from the same 127.0.0.1.
 */
async function withDemo(run: (own: Demo) => Promise<void>): Promise<void> {
  const ownDir = mkdtempSync(join(tmpdir(), 'tombolbayar-screens-own-'));
  const own = await startDemo({ dataDir: ownDir, shopPort: 0, gatewayPort: 0, log: () => {} });
  try {
    await run(own);
  } finally {
    await own.close();
    rmSync(ownDir, { recursive: true, force: true });
  }
}

/** The shop in `locale`: the browser's language picks the shop's words and the elements' (`<html lang>` too). */
async function openShopPage(page: Page, shop: Demo, locale: Locale): Promise<void> {
  await page.goto(shop.shopUrl);
  if (locale === 'id') await page.evaluate(() => (document.documentElement.lang = 'id'));
}

/**
 * What does not fit: the page wider than the viewport, and any visible element (shadow roots
 * included) whose content is wider than its box while the box clips it, or that sticks out of
 * the viewport. Visually hidden elements (1 px, clipped) are skipped.
 */
async function layoutProblems(page: Page): Promise<string[]> {
  // A string, so that no helper the TypeScript loader adds (`__name`) is needed in the page.
  return page.evaluate(`(() => {
    const problems = [];
    const root = document.documentElement;
    if (root.scrollWidth > innerWidth) problems.push('page: scrollWidth ' + root.scrollWidth + ' > ' + innerWidth);
    function name(el) {
      return el.tagName.toLowerCase() + (el.id ? '#' + el.id : '') + (el.getAttribute('part') ? '[part=' + el.getAttribute('part') + ']' : '') +
        (typeof el.className === 'string' && el.className ? '.' + el.className.split(' ')[0] : '');
    }
    // Visually hidden on purpose (a clip-path on it or an ancestor, as for screen-reader-only text).
    function clipped(el) {
      for (let up = el; up; up = up.parentElement) if (getComputedStyle(up).clipPath !== 'none') return true;
      return false;
    }
    function visit(scope) {
      for (const el of scope.querySelectorAll('*')) {
        if (el.shadowRoot) visit(el.shadowRoot);
        const style = getComputedStyle(el);
        const box = el.getBoundingClientRect();
        if (style.display === 'none' || style.visibility === 'hidden' || box.width <= 1 || box.height <= 1) continue;
        if (['HTML', 'BODY', 'SCRIPT', 'STYLE'].includes(el.tagName) || clipped(el)) continue;
        if (box.right > innerWidth + 0.5 || box.left < -0.5) problems.push(name(el) + ': ' + Math.round(box.left) + '..' + Math.round(box.right) + ' outside 0..' + innerWidth);
        const clips = style.overflowX !== 'visible' || style.textOverflow === 'ellipsis';
        if (clips && el.scrollWidth > el.clientWidth + 1 && el.textContent.trim()) problems.push(name(el) + ': text clipped (' + el.scrollWidth + ' > ' + el.clientWidth + ')');
      }
    }
    visit(document);
    return problems;
  })()`);
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

/** Opens the inline picker and gets a number for `method`; returns the order the plug-in holds. */
async function payVaOrder(page: Page, method: string, shop: Demo = demo) {
  const details = page.locator('details.va-inline');
  if (!(await details.evaluate((element) => (element as HTMLDetailsElement).open))) await details.locator('summary').click();
  await page.locator('#va-bank').selectOption(method); // its label is in the page's language
  await page.locator('pay-va button').first().click();
  await page.locator('pay-va[state="pending"]').waitFor();
  const orderNum = await page.evaluate(() => (document.querySelector('pay-va') as unknown as { order: { orderNum: string } }).order.orderNum);
  const order = await shop.shop.payments.getOrder(orderNum);
  assert.ok(order?.vaNumber && order.platOrderNum);
  return order;
}

// First: the demo's plug-in rate-limits order creation per client, and the 390 px tests make many.
describe('the QRIS image of <pay-va>', () => {
  it('scans: a screenshot of it decodes to the order payload, whose CRC is valid', async () => {
    const page = await phonePage();
    await page.goto(demo.shopUrl);
    await addToCart(page, 'Jasmine tea, 100 g');
    const order = await payVaOrder(page, 'QRIS');
    const image = page.locator('pay-va [part=qr]');
    await image.waitFor();
    await image.locator('path').waitFor({ state: 'attached' });
    await image.scrollIntoViewIfNeeded();
    // As a phone camera would: a few frames, the first readable one counts (the page may still be scrolling).
    let decoded: { data: string } | null = null;
    for (let frame = 0; frame < 5 && !decoded; frame++) {
      const png = PNG.sync.read(await image.screenshot({ animations: 'disabled' }));
      decoded = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
    }
    assert.ok(decoded, 'the image is a readable QR code');
    assert.equal(decoded.data, order.vaNumber);
    assert.ok(hasValidCrc(decoded.data), 'CRC valid');
    await page.context().close();
  });
});

for (const width of WIDTHS) {
  for (const locale of LOCALES) {
    // Artifacts keep their names at 390 px in English; the other screens are suffixed.
    const suffix = width === 390 && locale === 'en' ? '' : `-${width}-${locale}`;
    describe(`at ${width} px, in ${locale === 'id' ? 'Indonesian' : 'English'}`, () => {
      it('the shop: nothing scrolls sideways or is clipped, empty, with a cart and with orders; axe finds nothing', () =>
        withDemo(async (shop) => {
          const page = await phonePage(width, locale, true);
          await openShopPage(page, shop, locale);
          assert.deepEqual(await layoutProblems(page), [], 'empty shop');
          assert.deepEqual(await axeViolations(page), [], 'axe, empty shop');
          await addToCart(page, 'Kopi Toraja, 1 kg', locale);
          await addToCart(page, 'Batik tulis shirt', locale);
          const order = await payVaOrder(page, 'RETAIL_ALFAMART', shop);
          await page.locator(`#order-rows tr[data-order-num="${order.orderNum}"]`).waitFor();
          assert.deepEqual(await layoutProblems(page), [], 'cart, orders and <pay-va>');
          assert.deepEqual(await axeViolations(page), [], 'axe, cart, orders and <pay-va>');
          await screenshot(page, `phone-shop${suffix}`);
          await page.context().close();
        }));

      it('the hosted page, before a method is chosen and for every method', () =>
        withDemo(async (shop) => {
          const page = await phonePage(width, locale);
          for (const method of [undefined, ...METHOD_CODES]) {
            // As the shop's page asks for it (same origin); without a method, the customer picks one.
            const response = await fetch(`${shop.shopUrl}/pay/links`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', origin: shop.shopUrl },
              body: JSON.stringify({ cart: [{ sku: 'kopi-gayo-250', quantity: 1 }], method, idempotencyKey: crypto.randomUUID().replaceAll('-', '') }),
            });
            const link = (await response.json()) as { url: string };
            assert.ok(link.url, `${method}: ${JSON.stringify(link)}`);
            await page.goto(`${link.url}&lang=${locale}`);
            // Before a method is chosen, the page offers them all; after, it shows the chosen one.
            await page.getByText(METHODS[method ?? 'QRIS'].displayName).first().waitFor();
            assert.deepEqual(await layoutProblems(page), [], method ?? 'no method chosen yet');
            if (!method) await screenshot(page, `phone-hosted-page-choose${suffix}`);
          }
          await page.context().close();
        }));

      it('<pay-va> for VA, QRIS, Alfamart and an e-wallet, then paid; and expired, and failed', () =>
        withDemo(async (shop) => {
          for (const method of ['VA_BCA', 'QRIS', 'RETAIL_ALFAMART', 'EWALLET_OVO']) {
            const page = await phonePage(width, locale);
            await openShopPage(page, shop, locale);
            await addToCart(page, 'Kopi Gayo, 250 g', locale);
            const order = await payVaOrder(page, method, shop);
            const total = (Number(order.payMoney) + Number(order.payFee)).toLocaleString('id-ID');
            const va = page.locator('pay-va');
            await va.locator('[part=total]').filter({ hasText: `Rp ${total}` }).waitFor();
            if (method === 'QRIS') await va.locator('[part=qr]').waitFor();
            assert.deepEqual(await layoutProblems(page), [], `${method}, pending`);
            await screenshot(page, `phone-pay-va-${method}${suffix}`);
            if (!suffix) await page.locator('aside.checkout').screenshot({ path: join(ARTIFACTS, `phone-checkout-${method}.png`) });
            await sandbox(shop, `orders/${order.platOrderNum}/pay`);
            await va.locator('[part~=outcome].paid').waitFor({ timeout: 30_000 });
            for (const part of ['number', 'copy', 'total', 'qr', 'steps', 'countdown']) assert.equal(await va.locator(`[part=${part}]`).count(), 0, `${method}: ${part} gone once paid`);
            assert.deepEqual(await layoutProblems(page), [], `${method}, paid`);
            await page.context().close();
          }
          for (const [end, state] of [['expire', 'expired'], ['fail', 'failed']] as const) {
            const page = await phonePage(width, locale);
            await openShopPage(page, shop, locale);
            await addToCart(page, 'Jasmine tea, 100 g', locale);
            const order = await payVaOrder(page, 'VA_MANDIRI', shop);
            await sandbox(shop, `orders/${order.platOrderNum}/${end}`);
            const va = page.locator('pay-va');
            await va.locator(`[part~=outcome].${state}`).waitFor({ timeout: 30_000 });
            assert.equal(await va.locator('[part=number]').count(), 0, `${end}: no number to pay any more`);
            assert.deepEqual(await layoutProblems(page), [], `<pay-va> ${state}`);
            await screenshot(page, `phone-pay-va-${state}${suffix}`);
            await page.context().close();
          }
        }));

      it('<pay-button> idle, open, pending, refused (error) and paid', () =>
        withDemo(async (shop) => {
          const page = await phonePage(width, locale);
          await openShopPage(page, shop, locale);
          await addToCart(page, 'Kopi Gayo, 250 g', locale);
          assert.deepEqual(await layoutProblems(page), [], 'idle');
          // A refusal: the merchant's quote() does not sell this (its message, no "try again").
          await page.locator('#pay').evaluate((button) => {
            (button as HTMLElement & { fields: unknown }).fields = { cart: [{ sku: 'no-such-coffee-from-a-very-long-catalogue-name', quantity: 1 }] };
          });
          await page.locator('#pay button').click();
          await page.locator('#pay[state="error"]').waitFor();
          await page.locator('#pay-result').filter({ hasText: locale === 'id' ? /Kami tidak menjual/ : /We do not sell/ }).waitFor();
          assert.deepEqual(await layoutProblems(page), [], 'error');
          await screenshot(page, `phone-shop-error${suffix}`);
          // Back to the cart (the page sets the fields again when it changes).
          await addToCart(page, 'Kopi Gayo, 250 g', locale);
          // A VA the customer will pay at the ATM.
          await page.locator('#pay').evaluate((button) => button.setAttribute('method', 'VA_BCA'));
          const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('#pay button').click()]);
          await popup.waitForURL(/\/pay\?orderNum=/);
          await page.locator('#pay[state="open"]').waitFor();
          assert.deepEqual(await layoutProblems(page), [], 'open');
          await popup.getByText(/\d{10,}/).first().waitFor();
          await popup.close();
          await page.locator('#pay[state="pending"]').waitFor({ timeout: 20_000 });
          assert.deepEqual(await layoutProblems(page), [], 'pending');
          await screenshot(page, `phone-shop-pending${suffix}`);
          const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
          await sandbox(shop, `orders/${(await shop.shop.payments.getOrder(orderNum))!.platOrderNum}/pay`);
          await page.locator('#pay[state="paid"]').waitFor({ timeout: 40_000 });
          assert.deepEqual(await layoutProblems(page), [], 'paid');
          await screenshot(page, `phone-shop-paid${suffix}`);
          if (!suffix) {
            await page.evaluate(() => scrollTo(0, 0));
            await page.screenshot({ path: join(ARTIFACTS, 'phone-shop-paid-top.png') });
          }
          await page.context().close();
        }));
    });
  }
}
