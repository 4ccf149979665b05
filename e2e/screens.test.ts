/**
 * The customer's screens on a phone (390 px wide), in Chromium against the real demo: the shop,
 * the hosted page for every method and both elements in each state, with nothing scrolling
 * sideways and no text clipped by its box; an axe check of the shop; and the QRIS image of
 * `<pay-va>` scanned (decoded from a screenshot) back to the order's payload, CRC valid.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { after, before, describe, it } from 'node:test';
import { hasValidCrc } from '@paybutton/gateway/internal';
import { METHOD_CODES, METHODS } from '@paybutton/protocol';
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
const PHONE = { width: 390, height: 844 };

let browser: Browser;
let demo: Demo;
let dataDir: string;
before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'paybutton-screens-'));
  demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await demo?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

/** A phone-sized page; `bypassCSP` only where axe is injected into the shop (its CSP forbids inline script). */
async function phonePage(bypassCSP = false): Promise<Page> {
  const context = await browser.newContext({ viewport: PHONE, deviceScaleFactor: 1, isMobile: true, hasTouch: true, bypassCSP });
  return context.newPage();
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
async function payVaOrder(page: Page, method: string) {
  await page.locator('details.va-inline summary').click();
  await page.getByLabel('Payment method').selectOption(method);
  await page.locator('pay-va button').first().click();
  await page.locator('pay-va[state="pending"]').waitFor();
  const orderNum = await page.evaluate(() => (document.querySelector('pay-va') as unknown as { order: { orderNum: string } }).order.orderNum);
  const order = await demo.shop.payments.getOrder(orderNum);
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

describe('at 390 px (a phone)', () => {
  it('the shop: nothing scrolls sideways or is clipped, empty, with a cart and with orders; axe finds nothing', async () => {
    const page = await phonePage(true);
    await page.goto(demo.shopUrl);
    assert.deepEqual(await layoutProblems(page), [], 'empty shop');
    assert.deepEqual(await axeViolations(page), [], 'axe, empty shop');
    await addToCart(page, 'Kopi Toraja, 1 kg');
    await addToCart(page, 'Batik tulis shirt');
    const order = await payVaOrder(page, 'RETAIL_ALFAMART');
    await page.locator(`#order-rows tr[data-order-num="${order.orderNum}"]`).waitFor();
    assert.deepEqual(await layoutProblems(page), [], 'cart, orders and <pay-va>');
    assert.deepEqual(await axeViolations(page), [], 'axe, cart, orders and <pay-va>');
    await screenshot(page, 'phone-shop');
    await page.context().close();
  });

  it('the hosted page, for every method', async () => {
    // A demo of its own: fourteen links at once would use up the shop's per-client rate limit.
    const ownDir = mkdtempSync(join(tmpdir(), 'paybutton-screens-hosted-'));
    const own = await startDemo({ dataDir: ownDir, shopPort: 0, gatewayPort: 0, log: () => {} });
    const page = await phonePage();
    for (const method of METHOD_CODES) {
      // As the shop's page asks for it (same origin), with the method already chosen.
      const response = await fetch(`${own.shopUrl}/pay/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', origin: own.shopUrl },
        body: JSON.stringify({ cart: [{ sku: 'kopi-gayo-250', quantity: 1 }], method, idempotencyKey: crypto.randomUUID().replaceAll('-', '') }),
      });
      const link = (await response.json()) as { url: string };
      assert.ok(link.url, `${method}: ${JSON.stringify(link)}`);
      await page.goto(link.url);
      await page.getByText(METHODS[method].displayName).first().waitFor();
      assert.deepEqual(await layoutProblems(page), [], method);
    }
    await page.context().close();
    await own.close();
    rmSync(ownDir, { recursive: true, force: true });
  });

  it('<pay-va> for VA, QRIS, Alfamart and an e-wallet, then paid: the exact total first; once paid, only the paid state', async () => {
    for (const method of ['VA_BCA', 'QRIS', 'RETAIL_ALFAMART', 'EWALLET_OVO']) {
      const page = await phonePage();
      await page.goto(demo.shopUrl);
      await addToCart(page, 'Kopi Gayo, 250 g');
      const order = await payVaOrder(page, method);
      const total = (Number(order.payMoney) + Number(order.payFee)).toLocaleString('id-ID');
      const va = page.locator('pay-va');
      await va.locator('[part=total]').filter({ hasText: `Rp ${total}` }).waitFor();
      if (method === 'QRIS') await va.locator('[part=qr]').waitFor();
      assert.deepEqual(await layoutProblems(page), [], `${method}, pending`);
      await screenshot(page, `phone-pay-va-${method}`);
      await page.locator('aside.checkout').screenshot({ path: join(ARTIFACTS, `phone-checkout-${method}.png`) });
      await sandbox(demo, `orders/${order.platOrderNum}/pay`);
      await va.getByText('Payment received').waitFor({ timeout: 30_000 });
      for (const part of ['number', 'copy', 'total', 'qr', 'steps', 'countdown']) assert.equal(await va.locator(`[part=${part}]`).count(), 0, `${method}: ${part} gone once paid`);
      assert.deepEqual(await layoutProblems(page), [], `${method}, paid`);
      await page.context().close();
    }
  });

  it('<pay-button> in each state of an attempt', async () => {
    const page = await phonePage();
    await page.goto(demo.shopUrl);
    await addToCart(page, 'Kopi Gayo, 250 g');
    assert.deepEqual(await layoutProblems(page), [], 'idle');
    const [popup] = await Promise.all([page.waitForEvent('popup'), page.locator('pay-button button').click()]);
    await popup.waitForURL(/\/pay\?orderNum=/);
    await page.locator('pay-button[state="open"]').waitFor();
    assert.deepEqual(await layoutProblems(page), [], 'open');
    await popup.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
    await popup.getByRole('button', { name: 'Simulate payment' }).click();
    await page.locator('pay-button[state="paid"]').waitFor({ timeout: 20_000 });
    assert.deepEqual(await layoutProblems(page), [], 'paid');
    await screenshot(page, 'phone-shop-paid');
    await page.evaluate(() => scrollTo(0, 0));
    await page.screenshot({ path: join(ARTIFACTS, 'phone-shop-paid-top.png') });
    await page.context().close();
  });
});
