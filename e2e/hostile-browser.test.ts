/**
 * The browser side of the attacks, in Chromium against the real demo (sandbox gateway and shop):
 * - an XSS corpus in what the hosted page shows (the quote's productDetail and name, the
 *   merchant's name) and in its query parameters, in the element's attributes and in the error
 *   messages the shop shows, in the return page's parameters: no dialog opens and no payload
 *   runs, with the pages' CSP on and with it switched off (escaping alone);
 * - another site's page cannot create orders through the shop, nor read an order's status;
 * - the rate limit holds for a real browser and the element reports it.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { DEMO_MERCHANT_CODE } from '../demo/src/demo.ts';
import { launchChromium } from './support.ts';
import { XSS_PAYLOADS, attackerSite, startHostileDemo, watchedContext, type HostileDemo, type Watched } from './hostile-support.ts';

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** Fits the gateway's 32-character productDetail and name. */
const SHORT_PAYLOADS = XSS_PAYLOADS.filter((payload) => payload.length <= 32);

function assertNothingRan(watched: Watched, where: string): void {
  assert.deepEqual(watched.hits, [], `a payload ran: ${where}`);
  assert.deepEqual(watched.dialogs, [], `a dialog opened: ${where}`);
}

// Escaping alone is the real test (CSP off, whole corpus); with the pages' CSP on, a sample.
for (const bypassCSP of [true, false]) {
  const mode = bypassCSP ? 'with CSP switched off (escaping alone)' : 'with the pages\' CSP';
  const corpus = bypassCSP ? XSS_PAYLOADS : XSS_PAYLOADS.slice(0, 2);
  const shortCorpus = corpus.filter((payload) => payload.length <= 32);
  describe(`XSS corpus ${mode}`, () => {
    let shop: HostileDemo;
    let watched: Watched;
    before(async () => {
      shop = await startHostileDemo();
      watched = await watchedContext(browser, { bypassCSP });
      // The plug-in learns where it is mounted from its first request.
      await fetch(`${shop.demo.shopUrl}/pay/orders/PBLEARN00000000000`);
    });
    after(async () => {
      await watched.context.close();
      await shop.close();
    });

    test('the hosted page shows hostile productDetail, name and merchant name as text, through payment and the way back', async () => {
      const merchant = await shop.demo.gateway.findMerchant(DEMO_MERCHANT_CODE);
      await shop.demo.gateway.registerMerchant({ merchantCode: DEMO_MERCHANT_CODE, publicKey: merchant!.publicKey, name: '<img src=x onerror=__xss("merchant")>' });
      const page = await watched.newPage();
      for (const [index, payload] of shortCorpus.entries()) {
        const name = SHORT_PAYLOADS[(index + 1) % SHORT_PAYLOADS.length]!;
        const link = await shop.demo.shop.payments.createPaymentLink({
          quote: { payMoney: 150_000, productDetail: payload, name, email: 'budi@example.com', phone: '081234567890' },
          returnTo: `${shop.demo.shopUrl}/`,
        });
        await page.goto(link.url);
        const text = await page.locator('body').innerText();
        assert.ok(text.includes(payload), `the product is shown as text: ${payload}`);
        assertNothingRan(watched, `hosted page of ${payload}`);
        // The way through payment and back once, in the escaping-alone run.
        if (index > 0 || !bypassCSP) continue;
        // Through the picker, the sandbox payment, the paid page and back to the shop.
        await page.getByRole('button', { name: 'BCA Virtual Account', exact: true }).click();
        await page.getByRole('button', { name: 'Simulate payment' }).click();
        await page.waitForURL((url) => url.origin === shop.demo.shopUrl, { timeout: 20_000 });
        await page.waitForLoadState('load');
        assertNothingRan(watched, `after paying ${payload}`);
      }
      await page.close();
    });

    test('hostile query parameters on the hosted page, the return page and the shop page run nothing', async () => {
      const page = await watched.newPage();
      const { gatewayUrl, shopUrl } = shop.demo;
      const link = await shop.demo.shop.payments.createPaymentLink({ quote: { payMoney: 50_000, productDetail: 'Teh', name: 'Budi', email: 'budi@example.com', phone: '081234567890' } });
      const platOrderNum = new URL(link.url).searchParams.get('orderNum')!;
      for (const payload of corpus.slice(0, 3)) {
        const q = encodeURIComponent(payload);
        for (const url of [
          `${gatewayUrl}/pay?orderNum=${q}`,
          `${gatewayUrl}/pay?orderNum=${platOrderNum}&lang=${q}&notice=${q}`,
          `${gatewayUrl}/pay/${q}`,
          `${shopUrl}/pay/return?order=${q}`,
          `${shopUrl}/pay/return?order=${link.orderNum}&rt=${q}`,
          `${shopUrl}/?tombolbayar_order=${q}#paybutton_token=${q}`,
        ]) {
          await page.goto(url);
          await page.waitForLoadState('load');
          assertNothingRan(watched, url);
        }
      }
      await page.close();
    });

    test('hostile attributes on <pay-button> and <pay-va>, and error messages echoing them, are shown as text', async () => {
      const page = await watched.newPage();
      await page.goto(shop.demo.shopUrl);
      for (const payload of corpus) {
        await setUp(page, 'pay', payload);
        await page.locator('#pay').getByRole('button').click();
        const result = page.locator('#pay-result');
        // A refusal (not_for_sale) is the merchant's own message, as it is.
        await page.waitForFunction(() => document.getElementById('pay-result')!.textContent !== '');
        assert.ok((await result.innerText()).includes(payload), 'the shop shows the refusal, payload as text');
        assertNothingRan(watched, `<pay-button item=${payload}>`);

        await setUp(page, 'pay-va', payload);
        await page.locator('#pay-va').getByRole('button').first().click();
        await page.waitForFunction(() => document.getElementById('va-result')!.textContent !== '');
        assertNothingRan(watched, `<pay-va item=${payload}>`);
        await page.evaluate(() => {
          for (const id of ['pay-result', 'va-result']) document.getElementById(id)!.textContent = '';
        });
      }
      // The method attribute is refused by name; nothing is echoed, nothing runs.
      await page.evaluate((payload) => {
        const button = document.getElementById('pay')!;
        button.setAttribute('item', 'kopi-gayo-250');
        button.setAttribute('method', payload);
      }, XSS_PAYLOADS[0]!);
      // The refusal names the field in the event (for the developer), the customer reads plain words.
      await page.evaluate(() => document.getElementById('pay')!.addEventListener('pay-error', (e) => ((window as unknown as { refusal: string }).refusal = (e as CustomEvent<{ message: string }>).detail.message)));
      await page.locator('#pay').getByRole('button').click();
      await page.locator('#pay-result').filter({ hasText: 'Something went wrong. Nothing was charged. Try again.' }).waitFor();
      assert.match(await page.evaluate(() => (window as unknown as { refusal: string }).refusal), /method/);
      assertNothingRan(watched, '<pay-button method=payload>');
      assert.deepEqual(watched.errors, [], 'no page script broke');
      await page.close();
    });
  });
}

/** The element asks for `item` alone (no cart), in the full-page mode (no popup), with hostile attributes. */
async function setUp(page: Page, id: 'pay' | 'pay-va', payload: string): Promise<void> {
  await page.evaluate(
    ({ id, payload }) => {
      const element = document.getElementById(id) as HTMLElement & { fields: Record<string, unknown>; disabled: boolean; reset?: () => void };
      element.reset?.();
      element.fields = {};
      element.disabled = false;
      element.setAttribute('item', payload);
      element.setAttribute('locale', payload);
      element.setAttribute('amount', payload);
      element.setAttribute('mode', 'redirect');
      if (id === 'pay') element.removeAttribute('method');
      // <pay-va> sits in a <details> of the demo page.
      const details = element.closest('details');
      if (details) details.open = true;
    },
    { id, payload },
  );
}

describe('another site', () => {
  test('cannot create orders through the shop or read an order, with fetch, no-cors or a form', async () => {
    const shop = await startHostileDemo();
    const watched = await watchedContext(browser, { bypassCSP: false });
    const { shopUrl } = shop.demo;
    await fetch(`${shopUrl}/pay/orders/PBLEARN00000000000`);
    const link = await shop.demo.shop.payments.createPaymentLink({ quote: { payMoney: 50_000, productDetail: 'Teh', name: 'Budi', email: 'budi@example.com', phone: '081234567890' } });
    const body = JSON.stringify({ idempotencyKey: 'attacker-key-000000001', cart: [{ sku: 'kopi-gayo-250', quantity: 1 }] });
    const site = await attackerSite(`<!doctype html><title>evil</title>
<form id="form" method="POST" action="${shopUrl}/pay/links" enctype="text/plain"><input name='{"idempotencyKey":"attacker-key-form-001","x":"' value='"}'></form>
<script>
  window.results = {};
  const shop = ${JSON.stringify(shopUrl)};
  Promise.all([
    fetch(shop + '/pay/links', { method: 'POST', headers: { 'content-type': 'application/json' }, body: ${JSON.stringify(body)} })
      .then((r) => 'status ' + r.status, () => 'blocked').then((v) => (results.cors = v)),
    fetch(shop + '/pay/links', { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: ${JSON.stringify(body)} })
      .then((r) => r.type, () => 'blocked').then((v) => (results.noCors = v)),
    fetch(shop + '/pay/orders/${link.orderNum}?token=${link.statusToken}')
      .then((r) => r.text(), () => 'blocked').then((v) => (results.read = v)),
  ]).then(() => { results.done = true; });
</script>`);
    try {
      const page = await watched.newPage();
      const refusals: number[] = [];
      page.on('response', (response) => {
        if (response.url().startsWith(`${shopUrl}/pay/links`)) refusals.push(response.status());
      });
      await page.goto(site.url);
      await page.waitForFunction(() => (window as unknown as { results: { done?: boolean } }).results.done === true);
      const results = await page.evaluate(() => (window as unknown as { results: Record<string, string> }).results);
      assert.equal(results.cors, 'status 403', 'a cross-origin fetch reads only that it was refused (so an element there can say so), nothing more');
      assert.equal(results.noCors, 'opaque', 'a no-cors request is sent blind');
      // The other site reads its own refusal, never the order: no status, no amount, no order number.
      assert.match(results.read!, /"code":"origin_not_allowed"/);
      assert.doesNotMatch(results.read!, new RegExp(`${link.orderNum}|pending|50000|50\\.000`), 'the status cannot be read from another site');
      await Promise.all([page.waitForURL(`${shopUrl}/pay/links`), page.evaluate(() => (document.getElementById('form') as HTMLFormElement).submit())]);
      assert.ok(refusals.length >= 1 && refusals.every((status) => status === 403 || status === 415), `refused: ${refusals.join(', ')}`);
      assert.deepEqual(shop.demo.shop.store.recent().map((order) => order.orderNum), [link.orderNum], 'no order was created by the other site');
    } finally {
      await site.close();
      await watched.context.close();
      await shop.close();
    }
  });

  test('the rate limit holds for a real browser, and the element says so', async () => {
    const shop = await startHostileDemo();
    const watched = await watchedContext(browser, { bypassCSP: false });
    try {
      const page = await watched.newPage();
      await page.goto(shop.demo.shopUrl);
      // The default limit (300 a minute per address) is sized for customers behind one carrier NAT.
      // Ten at a time: all 300 must land inside the limit's one-minute window, even on a busy machine.
      const statuses = await page.evaluate(async () => {
        const out: number[] = [];
        for (let first = 0; first < 300; first += 10) {
          const batch = Array.from({ length: 10 }, (_, offset) =>
            fetch('/pay/links', {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({ idempotencyKey: `rate-limit-${first + offset}-${'x'.repeat(16)}`, cart: [{ sku: 'teh-melati', quantity: 1 }] }),
            }).then((response) => response.status),
          );
          out.push(...(await Promise.all(batch)));
        }
        return out;
      });
      assert.deepEqual(statuses, Array(300).fill(201));
      await page.getByRole('button', { name: 'Add to cart: Kopi Gayo, 250 g' }).click();
      await page.getByLabel('Full page').check();
      await page.locator('#pay').getByRole('button').click();
      await page.locator('#pay-result').filter({ hasText: 'Nothing was charged. Try again.' }).waitFor();
      assert.equal(await page.locator('#pay').getAttribute('state'), 'error');
      assert.doesNotMatch(await page.locator('#pay-result').innerText(), /rate_limited|429/);
    } finally {
      await watched.context.close();
      await shop.close();
    }
  });
});
