/**
 * The return page with `allowedOrigins`: the shop's checkout on a second origin (`localhost`),
 * the plug-in and its return page on `publicUrl`'s (`127.0.0.1`). The return page cannot read a
 * cross-origin opener's location, and must not need to: it posts to the origin of the page that
 * started the payment, and closes only on that page's acknowledgement from that origin.
 * Otherwise it continues as the full-page flow. In Chromium, every connection on loopback.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { CHECKOUT_PAGE, launchChromium } from './support/browser.ts';
import { MERCHANT_CODE } from './support/keys.ts';
import { newKey, startHarness, type Harness } from './support/harness.ts';

/** The second origin of the same test server: another origin to the browser, still loopback. */
const secondOrigin = (merchantUrl: string) => merchantUrl.replace('127.0.0.1', 'localhost');

let shop: Harness;
let browser: Browser;
before(async () => {
  shop = await startHarness({
    options: ({ merchantUrl }) => ({ allowedOrigins: [secondOrigin(merchantUrl)] }),
    configureApp: (app) => app.get('/checkout', (_req, res) => res.type('html').send(CHECKOUT_PAGE)),
  });
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
  await shop.close();
});

async function redirectUrlOf(orderNum: string): Promise<string> {
  const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
  assert.ok(order?.redirectUrl);
  return order.redirectUrl;
}

/** From the page open in `page`, create an order at the plug-in as the element does in the popup flow (no returnTo). */
async function createFrom(page: Page, body: Record<string, unknown> = {}): Promise<string> {
  const created = await page.evaluate(async ([mount, extra]) => {
    const response = await fetch(`${mount}/links`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ item: 'kopi', idempotencyKey: crypto.randomUUID(), ...extra }),
    });
    return (await response.json()) as { orderNum?: string };
  }, [shop.mountUrl, body] as const);
  assert.ok(created.orderNum, JSON.stringify(created));
  return created.orderNum;
}

async function openReturnPopup(page: Page, orderNum: string) {
  const popupPromise = page.waitForEvent('popup');
  await page.evaluate((url) => (globalThis as unknown as { open(url: string, name: string): unknown }).open(url, 'tombolbayar'), await redirectUrlOf(orderNum));
  return popupPromise;
}

const messagesOf = (page: Page) => page.evaluate(() => (globalThis as unknown as { __messages: unknown[] }).__messages);

describe('the return page with allowedOrigins', () => {
  test('over HTTP: the message goes to the origin of the page that asked (its Referer), not to publicUrl', async () => {
    const second = secondOrigin(shop.merchantUrl);
    // A cross-origin fetch carries the page's origin as its Referer by default (strict-origin-when-cross-origin).
    const created = await shop.createLink({ item: 'teh', idempotencyKey: newKey() }, { origin: second, referer: `${second}/` });
    assert.equal(created.status, 201, JSON.stringify(created.body));
    assert.equal(created.headers.get('access-control-allow-origin'), second);
    const page = await fetch(await redirectUrlOf(created.body.orderNum));
    assert.match(await page.text(), new RegExp(`data-origin="${second}"`));
  });

  test('in Chromium: a popup of the checkout on the second origin tells it, is acknowledged from there, and closes', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => message.type() === 'error' && errors.push(message.text()));
    await page.goto(`${secondOrigin(shop.merchantUrl)}/checkout`);
    const orderNum = await createFrom(page);
    const popup = await openReturnPopup(page, orderNum);
    popup.on('console', (message) => message.type() === 'error' && errors.push(`popup: ${message.text()}`));
    await popup.waitForEvent('close', { timeout: 10_000 });
    assert.deepEqual(await messagesOf(page), [{ origin: shop.merchantUrl, data: { type: 'tombolbayar:return', orderNum } }, { origin: shop.merchantUrl, data: { type: 'paybutton:return', orderNum } }]);
    assert.deepEqual(errors, [], 'no script error (no SecurityError from reading the opener)');
    await page.close();
  });

  test('in Chromium: an allowed origin that did not start the payment is told nothing; the popup continues as a full page', async () => {
    const page = await browser.newPage();
    // Started on publicUrl's origin, opened by a page on the second (allowed) origin.
    await page.goto(`${shop.merchantUrl}/checkout`);
    const orderNum = await createFrom(page, { returnTo: `${shop.merchantUrl}/checkout?from=start` });
    await page.goto(`${secondOrigin(shop.merchantUrl)}/checkout`);
    const popup = await openReturnPopup(page, orderNum);
    await popup.waitForURL(/tombolbayar_order=/, { timeout: 10_000 });
    assert.equal(popup.isClosed(), false);
    const landed = new URL(popup.url());
    assert.equal(`${landed.origin}${landed.pathname}${landed.searchParams.get('from')}`, `${shop.merchantUrl}/checkoutstart`);
    assert.deepEqual(await messagesOf(page), []);
    await page.close();
  });

  test('in Chromium: the second origin that started it but never acknowledges: the popup continues as a full page', async () => {
    const page = await browser.newPage();
    await page.goto(`${secondOrigin(shop.merchantUrl)}/checkout?silent`);
    const orderNum = await createFrom(page);
    const popup = await openReturnPopup(page, orderNum);
    await popup.waitForURL(/tombolbayar_order=/, { timeout: 10_000 });
    assert.equal(popup.isClosed(), false);
    assert.equal(new URL(popup.url()).origin, secondOrigin(shop.merchantUrl), 'back on the page that started it');
    assert.deepEqual(await messagesOf(page), [{ origin: shop.merchantUrl, data: { type: 'tombolbayar:return', orderNum } }, { origin: shop.merchantUrl, data: { type: 'paybutton:return', orderNum } }]);
    await page.close();
  });
});
