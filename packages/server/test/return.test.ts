/**
 * `GET /return`: the page the gateway sends the customer to. Checked over HTTP (headers, redirect
 * targets, that no URL ever carries the status token) and in Chromium (the popup really tells its
 * opener, on the merchant's origin only, under a CSP without inline script; the full page lands
 * back on the checkout with the order, and nothing secret in the address bar).
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser } from 'playwright-core';
import { MERCHANT_CODE } from './support/keys.ts';
import { CHECKOUT_PAGE, launchChromium } from './support/browser.ts';
import { startHarness, type Harness } from './support/harness.ts';

let shop: Harness;
before(async () => {
  shop = await startHarness({
    configureApp: (app) => app.get('/checkout', (_req, res) => res.type('html').send(CHECKOUT_PAGE)),
  });
});
after(async () => {
  await shop.close();
});

/** The redirectUrl the gateway holds for the order: where it sends the customer after paying. */
async function redirectUrlOf(orderNum: string): Promise<string> {
  const order = await shop.gateway.findOrderByOrderNum(MERCHANT_CODE, orderNum);
  assert.ok(order?.redirectUrl);
  return order.redirectUrl;
}

describe('GET /return over HTTP', () => {
  test('the redirectUrl sent to the gateway points at /return with the order and a return secret, not the status token', async () => {
    const created = await shop.createLink({ item: 'kopi', returnTo: `${shop.merchantUrl}/checkout?step=pay` });
    const redirectUrl = new URL(await redirectUrlOf(created.body.orderNum));
    assert.equal(`${redirectUrl.origin}${redirectUrl.pathname}`, `${shop.mountUrl}/return`);
    assert.equal(redirectUrl.searchParams.get('order'), created.body.orderNum);
    assert.match(redirectUrl.searchParams.get('rt') ?? '', /^[A-Za-z0-9_-]{22}$/);
    assert.ok(!redirectUrl.href.includes(created.body.statusToken));
  });

  test('the page: strict CSP, no inline script, its data escaped into attributes', async () => {
    const created = await shop.createLink({ item: 'kopi', returnTo: `${shop.merchantUrl}/checkout` });
    const page = await fetch(await redirectUrlOf(created.body.orderNum));
    assert.equal(page.status, 200);
    assert.match(page.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(page.headers.get('content-security-policy') ?? '', /^default-src 'none'; script-src 'self'; style-src 'sha256-[A-Za-z0-9+/]+=*'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/);
    assert.equal(page.headers.get('cache-control'), 'no-store');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    const html = await page.text();
    assert.doesNotMatch(html, /<script>(?!<\/script>)/, 'no inline script');
    assert.match(html, new RegExp(`<script src="${shop.mountUrl}/return.js"></script>`));
    assert.match(html, new RegExp(`data-order="${created.body.orderNum}"`));
    assert.match(html, new RegExp(`data-origin="${shop.merchantUrl}"`));
    assert.doesNotMatch(html, new RegExp(created.body.statusToken));
    const script = await fetch(`${shop.mountUrl}/return.js`);
    assert.match(script.headers.get('content-type') ?? '', /^text\/javascript/);
    assert.match(await script.text(), /postMessage\(\{ type: 'tombolbayar:return', orderNum: orderNum \}, origin\)/);
  });

  test('continue: a 303 to the page that started, with the order and never the status token', async () => {
    const created = await shop.createLink({ item: 'kopi', returnTo: `${shop.merchantUrl}/checkout?step=pay#old` });
    const go = await fetch(await redirectUrlOf(created.body.orderNum), { redirect: 'manual' }).then(async (page) => {
      const continueUrl = /id="tombolbayar-continue" href="([^"]+)"/.exec(await page.text())![1]!.replaceAll('&#38;', '&');
      return fetch(continueUrl, { redirect: 'manual' });
    });
    assert.equal(go.status, 303);
    const location = new URL(go.headers.get('location')!);
    assert.equal(`${location.origin}${location.pathname}`, `${shop.merchantUrl}/checkout`);
    assert.equal(location.searchParams.get('step'), 'pay');
    assert.equal(location.searchParams.get('tombolbayar_order'), created.body.orderNum);
    assert.equal(location.hash, '', 'no fragment: the element kept the token in sessionStorage');
    assert.ok(!location.href.includes(created.body.statusToken), 'the token is nowhere in the URL');
  });

  test('without the return link\'s secret, continue says nothing: the same 404 as an unknown order', async () => {
    const created = await shop.createLink({ item: 'kopi', returnTo: `${shop.merchantUrl}/checkout?cart=secret-cart-7` });
    const unknown = await shop.get('/return/continue?order=PBNOSUCHORDER00000');
    assert.equal(unknown.status, 404);
    for (const query of [`order=${created.body.orderNum}`, `order=${created.body.orderNum}&rt=${'A'.repeat(22)}`]) {
      const go = await shop.get(`/return/continue?${query}`);
      assert.equal(go.status, 404);
      assert.equal(go.headers.get('location'), null);
      assert.equal(go.text, unknown.text);
      assert.ok(!go.text.includes('secret-cart-7') && !go.text.includes(created.body.statusToken));
    }
  });

  test('the Referer is remembered when no returnTo is given; nothing known falls back to the site root', async () => {
    const continueOf = async (orderNum: string) => {
      const rt = new URL(await redirectUrlOf(orderNum)).searchParams.get('rt')!;
      return shop.get(`/return/continue?order=${orderNum}&rt=${rt}`);
    };
    const viaReferer = await shop.createLink({ item: 'teh' }, { referer: `${shop.merchantUrl}/cart/42` });
    const go = await continueOf(viaReferer.body.orderNum);
    assert.equal(new URL(go.headers.get('location')!).pathname, '/cart/42');
    const foreignReferer = await shop.createLink({ item: 'teh' }, { referer: 'https://elsewhere.example/page' });
    const root = await continueOf(foreignReferer.body.orderNum);
    assert.equal(new URL(root.headers.get('location')!).href.split('?')[0], `${shop.merchantUrl}/`);
  });

  test('a retry that falls back from the popup to a full page gets the same order, and returns to the new page', async () => {
    const key = crypto.randomUUID();
    const popup = await shop.createLink({ item: 'kopi', idempotencyKey: key }, { referer: `${shop.merchantUrl}/product/kopi` });
    assert.equal(popup.status, 201);
    const fullPage = await shop.createLink({ item: 'kopi', idempotencyKey: key, returnTo: `${shop.merchantUrl}/checkout?mode=redirect` });
    assert.equal(fullPage.status, 201, JSON.stringify(fullPage.body));
    assert.deepEqual(fullPage.body, popup.body, 'the same order, not an idempotency_mismatch');
    assert.equal(fullPage.headers.get('idempotent-replayed'), 'true');
    const rt = new URL(await redirectUrlOf(popup.body.orderNum)).searchParams.get('rt')!;
    const go = await shop.get(`/return/continue?order=${popup.body.orderNum}&rt=${rt}`);
    const location = new URL(go.headers.get('location')!);
    assert.equal(`${location.pathname}${location.search}`, `/checkout?mode=redirect&tombolbayar_order=${popup.body.orderNum}`);
    const other = await shop.createLink({ item: 'teh', idempotencyKey: key, returnTo: `${shop.merchantUrl}/checkout` });
    assert.equal(other.body.error.code, 'idempotency_mismatch', 'another item is still another request');
  });
});

describe('GET /return in Chromium', () => {
  let browser: Browser;
  before(async () => {
    browser = await launchChromium();
  });
  after(async () => {
    await browser?.close();
  });

  test('in a popup: posts { type, orderNum } to the opener on the merchant origin, then closes once acknowledged', async () => {
    const page = await browser.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await page.goto(`${shop.merchantUrl}/checkout`);
    const created = await page.evaluate(async (mount): Promise<{ orderNum: string; statusToken: string }> => {
      const response = await fetch(`${mount}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ item: 'kopi', idempotencyKey: crypto.randomUUID() }),
      });
      return (await response.json()) as { orderNum: string; statusToken: string };
    }, shop.mountUrl);
    assert.ok(created.orderNum, JSON.stringify(created));
    const redirectUrl = await redirectUrlOf(created.orderNum);
    const popupPromise = page.waitForEvent('popup');
    await page.evaluate((url) => (globalThis as unknown as { open(url: string, name: string): unknown }).open(url, 'tombolbayar'), redirectUrl);
    const popup = await popupPromise;
    popup.on('response', (response) => { if (response.status() >= 400) errors.push(`popup ${response.status()} ${response.url()}`); });
    page.on('response', (response) => { if (response.status() >= 400) errors.push(`page ${response.status()} ${response.url()}`); });
    popup.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    await popup.waitForEvent('close', { timeout: 10_000 });
    const messages = await page.evaluate(() => (globalThis as unknown as { __messages: unknown[] }).__messages);
    // The earlier name too, for one version: an element a tab loaded before the upgrade.
    assert.deepEqual(messages, [{ origin: shop.merchantUrl, data: { type: 'tombolbayar:return', orderNum: created.orderNum } }, { origin: shop.merchantUrl, data: { type: 'paybutton:return', orderNum: created.orderNum } }]);
    assert.deepEqual(errors, [], 'no CSP violation, no script error');
    await page.close();
  });

  /** Opens the order's return page in a popup of `openerUrl`; returns the popup. */
  async function returnInPopupOf(page: import('playwright-core').Page, openerUrl: string, item: string) {
    await page.goto(`${shop.merchantUrl}/checkout`);
    const created = await page.evaluate(async ([mount, it]): Promise<{ orderNum: string }> => {
      const response = await fetch(`${mount}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ item: it, idempotencyKey: crypto.randomUUID(), returnTo: (globalThis as unknown as { location: { href: string } }).location.href }),
      });
      return (await response.json()) as { orderNum: string };
    }, [shop.mountUrl, item] as const);
    const redirectUrl = await redirectUrlOf(created.orderNum);
    await page.goto(openerUrl);
    const popupPromise = page.waitForEvent('popup');
    await page.evaluate((url) => (globalThis as unknown as { open(url: string, name: string): unknown }).open(url, 'shop'), redirectUrl);
    return { popup: await popupPromise, orderNum: created.orderNum };
  }

  test('opened by a page of another origin: tells it nothing, stays open and continues to the shop as a full page', async () => {
    const page = await browser.newPage();
    // localhost is another origin than the shop's 127.0.0.1, on the same test server.
    const foreign = `${shop.merchantUrl.replace('127.0.0.1', 'localhost')}/checkout`;
    const { popup, orderNum } = await returnInPopupOf(page, foreign, 'kopi');
    await popup.waitForURL(/tombolbayar_order=/, { timeout: 10_000 });
    assert.equal(popup.isClosed(), false);
    const landed = new URL(popup.url());
    assert.equal(landed.origin, shop.merchantUrl);
    assert.equal(landed.pathname, '/checkout');
    assert.equal(landed.searchParams.get('tombolbayar_order'), orderNum);
    assert.deepEqual(await page.evaluate(() => (globalThis as unknown as { __messages: unknown[] }).__messages), []);
    await page.close();
  });

  test('opened by the shop page that never acknowledges: stays open and continues as a full page', async () => {
    const page = await browser.newPage();
    const { popup, orderNum } = await returnInPopupOf(page, `${shop.merchantUrl}/checkout?silent`, 'teh');
    await popup.waitForURL(/tombolbayar_order=/, { timeout: 10_000 });
    assert.equal(popup.isClosed(), false);
    assert.equal(new URL(popup.url()).searchParams.get('tombolbayar_order'), orderNum);
    const messages = await page.evaluate(() => (globalThis as unknown as { __messages: unknown[] }).__messages);
    assert.deepEqual(messages, [{ origin: shop.merchantUrl, data: { type: 'tombolbayar:return', orderNum } }, { origin: shop.merchantUrl, data: { type: 'paybutton:return', orderNum } }]);
    await page.close();
  });

  test('as a full page: lands back on the checkout with the order, no token in the address bar', async () => {
    const page = await browser.newPage();
    await page.goto(`${shop.merchantUrl}/checkout`);
    const created = await page.evaluate(async (mount): Promise<{ orderNum: string; statusToken: string }> => {
      const response = await fetch(`${mount}/links`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ item: 'teh', idempotencyKey: crypto.randomUUID() }),
      });
      return (await response.json()) as { orderNum: string; statusToken: string };
    }, shop.mountUrl);
    await page.goto(await redirectUrlOf(created.orderNum));
    await page.waitForURL(/tombolbayar_order=/, { timeout: 10_000 });
    const landed = new URL(page.url());
    assert.equal(landed.pathname, '/checkout', 'the Referer of the create call was remembered');
    assert.equal(landed.searchParams.get('tombolbayar_order'), created.orderNum);
    assert.equal(landed.hash, '');
    assert.ok(!page.url().includes(created.statusToken), 'the token is not in the address bar or the history');
    await page.close();
  });
});
