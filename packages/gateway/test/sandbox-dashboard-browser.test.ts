/**
 * The sandbox dashboard in Chromium, as a developer uses it on a phone (390 px) and a laptop
 * (1280 px): pay a VA by its number, watch the notification arrive, resend it, find an order, set
 * the merchant's branding, move the clock, read the gateway's figures as they move. No CSP violation, no horizontal scroll, axe clean.
 *
 * `UPDATE_SCREENSHOTS=1` also writes docs/sandbox-dashboard.png (1280 px) and
 * docs/sandbox-dashboard-390.png, the README's pictures.
 */
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { launchChromium, MERCHANT, startLiveGateway, type LiveGateway } from './page-support.ts';
import { eventually } from './support/receiver.ts';
import { openWatchedPage, type WatchedPage } from './support/watched-page.ts';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');
const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
const PNG_1PX = 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==';

let browser: Browser;
let live: LiveGateway;
const contexts: BrowserContext[] = [];

before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser.close();
});
beforeEach(async () => {
  live = await startLiveGateway();
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  await live.close();
});

function openPage(width: number, options: { bypassCSP?: boolean } = {}): Promise<WatchedPage> {
  return openWatchedPage(browser, contexts, { viewport: { width, height: 844 }, ...options });
}

/** Reload until `text` is on the page (the dashboard has no script: a person refreshes too). */
async function reloadUntil(page: Page, text: string | RegExp): Promise<void> {
  await eventually(async () => {
    if ((await page.getByText(text).count()) > 0) return true;
    await page.reload();
    return undefined;
  }, 20_000, `the text ${String(text)}`);
}

async function noHorizontalScroll(page: Page): Promise<void> {
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
  assert.ok(scrollWidth <= clientWidth, `the page scrolls sideways: ${scrollWidth} > ${clientWidth} at ${page.url()}`);
}

async function axeViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: AXE_PATH });
  return page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
  });
}

describe('sandbox dashboard in Chromium', () => {
  it('on a phone: pays a VA by its number, shows the delivery, resends it, finds the order', async () => {
    const link = await live.createLink({ method: 'VA_BCA' });
    const order = await live.gateway.findOrder(link.platOrderNum);
    const page = await openPage(390);
    await page.goto(`${live.url}/sandbox/dashboard`);
    await page.getByLabel('VA number or payment code').fill(order!.vaNumber!);
    await page.getByRole('button', { name: 'Pay', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Payment simulated' }).waitFor();
    await page.getByRole('heading', { name: `Order ${link.orderNum}` }).waitFor();
    assert.equal((await live.gateway.findOrder(link.platOrderNum))?.status, 'PAID');
    // The page's script reloads it when the notification is attempted: no refresh by hand.
    await page.getByText(/Attempt 1 of .*: HTTP 200, acknowledged/).waitFor();
    await noHorizontalScroll(page);

    await page.getByRole('button', { name: 'Resend' }).click();
    await page.getByRole('status').filter({ hasText: 'queued again' }).waitFor();
    await page.getByText(/Attempt 2 of .*: HTTP 200, acknowledged/).waitFor();
    if (process.env.UPDATE_SCREENSHOTS) await page.screenshot({ path: `${DOCS}sandbox-dashboard-390.png`, fullPage: true });

    await page.getByRole('link', { name: 'Sandbox dashboard' }).click();
    await page.getByRole('searchbox', { name: 'Order number, platform number or VA number' }).fill(link.orderNum);
    await page.keyboard.press('Enter');
    await page.getByRole('table', { name: /Orders matching/ }).getByRole('link', { name: link.orderNum }).click();
    await page.getByRole('heading', { name: `Order ${link.orderNum}` }).waitFor();
    await noHorizontalScroll(page);
    assert.deepEqual(page.problems, []);
  });

  it('on a phone the orders list keeps each order\'s status, VA number and amount in view', async () => {
    const va = await live.createLink({ method: 'VA_BCA' });
    const qris = await live.createLink({ method: 'QRIS' });
    const paid = await live.createLink({ method: 'VA_MANDIRI' });
    await live.gateway.pay(paid.platOrderNum);
    const page = await openPage(390);
    await page.goto(`${live.url}/sandbox/dashboard`);
    const table = page.getByRole('table', { name: /Newest/ });
    await table.waitFor();
    const viewport = page.viewportSize()!;
    const rows = table.locator('tbody tr');
    assert.equal(await rows.count(), 3);
    for (let index = 0; index < 3; index++) {
      const row = rows.nth(index);
      for (const cell of ['th[scope=row]', '.dash-cell-status', '.dash-cell-va', '.dash-cell-amount']) {
        const box = await row.locator(cell).boundingBox();
        assert.ok(box && box.width > 0 && box.height > 0, `row ${index} ${cell} is shown`);
        assert.ok(box.x >= 0 && box.x + box.width <= viewport.width, `row ${index} ${cell} lies within the 390 px viewport: ${JSON.stringify(box)}`);
      }
    }
    const texts = await rows.allInnerTexts();
    for (const order of [va, qris, paid]) {
      const found = await live.gateway.findOrder(order.platOrderNum);
      const text = texts.find((line) => line.includes(order.orderNum))!;
      assert.ok(text.includes(found!.status) && text.includes(found!.vaNumber!.slice(0, 12)) && /Rp\s?150\.000/.test(text), text);
    }
    await noHorizontalScroll(page);
    await page.screenshot({ path: process.env.UPDATE_SCREENSHOTS ? `${DOCS}sandbox-dashboard-orders-390.png` : join(tmpdir(), 'sandbox-dashboard-orders-390.png'), fullPage: true });
    assert.deepEqual(page.problems, []);
  });

  it('on a phone the front page shows the gateway\'s figures, live, and never reloads under typing', async () => {
    const first = await live.createLink({ method: 'VA_BCA' });
    const page = await openPage(390);
    await page.goto(`${live.url}/sandbox/dashboard`);
    const card = page.getByRole('region', { name: 'Figures' });
    const figure = (label: string) => card.locator(`dt:text-is("${label}") + dd`);
    assert.equal(await figure('Orders created').innerText(), '1');
    assert.equal(await figure('Paid').innerText(), '0');
    // Paid elsewhere (the CLI, the API): the page's script sees the figures move and reloads.
    await live.gateway.pay(first.platOrderNum);
    await figure('Paid').filter({ hasText: /^1$/ }).waitFor();
    await figure('Delivery attempts delivered').filter({ hasText: /^1$/ }).waitFor();
    const viewport = page.viewportSize()!;
    for (const cell of await card.locator('dt, dd, a').all()) {
      const box = await cell.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= viewport.width, `${await cell.innerText()} lies within the 390 px viewport: ${JSON.stringify(box)}`);
    }
    assert.equal(await card.getByRole('link', { name: '/metrics' }).getAttribute('href'), '/metrics');
    await noHorizontalScroll(page);

    // Someone typing in a form: the figures move, the page sees it, and keeps what is typed.
    const shown = await page.locator('main').getAttribute('data-fingerprint');
    await page.getByRole('searchbox').fill('ORD-123');
    await page.evaluate(() => ((window as unknown as { sameDocument: boolean }).sameDocument = true));
    const seen = page.waitForResponse(async (response) => response.url().endsWith('/sandbox/dashboard/figures') && ((await response.json()) as { fingerprint: string }).fingerprint !== shown);
    await live.createLink({ method: 'VA_BNI' });
    await seen;
    await page.waitForResponse((response) => response.url().endsWith('/sandbox/dashboard/figures'));
    assert.ok(await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument), 'no reload while typing');
    assert.equal(await page.getByRole('searchbox').inputValue(), 'ORD-123');
    // Once the field is back as it was and left, the page catches up.
    await page.getByRole('searchbox').fill('');
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur());
    await figure('Orders created').filter({ hasText: /^2$/ }).waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('an open order page shows a payment made elsewhere (the CLI, the API) by itself', async () => {
    const link = await live.createLink({ method: 'VA_PERMATA' });
    const page = await openPage(1280);
    await page.goto(`${live.url}/sandbox/dashboard/orders/${link.platOrderNum}`);
    await page.getByRole('button', { name: 'Simulate payment' }).waitFor();
    assert.match((await page.locator('script[src]').getAttribute('src')) ?? '', /^\/sandbox\/dashboard\/assets\/dashboard\.js\?v=/);
    await live.gateway.pay(link.platOrderNum);
    await page.getByText(/Attempt 1 of .*: HTTP 200, acknowledged/).waitFor();
    await page.getByText('The order is PAID: nothing left to simulate.').waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('a link from another site is refused, and the refusal links to the dashboard itself', async () => {
    const page = await openPage(390);
    await page.goto(`${live.shopUrl}/return`);
    // The shop's page links to the dashboard, as a merchant's admin page might.
    await page.evaluate((href) => {
      const link = document.createElement('a');
      link.href = href;
      link.textContent = 'Sandbox';
      document.body.append(link);
    }, `${live.url}/sandbox/dashboard`);
    const refused = page.waitForResponse((response) => response.url().endsWith('/sandbox/dashboard'));
    await page.getByRole('link', { name: 'Sandbox' }).click();
    assert.equal((await refused).status(), 403);
    await page.getByRole('alert').filter({ hasText: 'a link from another site is refused' }).waitFor();
    await page.getByRole('link', { name: 'Back to the dashboard' }).click();
    await page.getByRole('heading', { name: 'Find an order' }).waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('on a laptop: sets the branding, moves the clock, expires and fails orders', async () => {
    const page = await openPage(1280);
    await page.goto(`${live.url}/sandbox/dashboard`);
    await page.getByRole('link', { name: MERCHANT.merchantCode }).click();
    await page.getByLabel('Display name').fill('Toko Kopi Gayo');
    await page.getByLabel(/^Logo/).fill(`data:image/png;base64,${PNG_1PX}`);
    await page.getByLabel(/^Accent colour/).fill('#0a7a3d');
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    const logo = page.getByRole('img', { name: 'Logo of Toko Kopi Gayo' });
    assert.ok(await logo.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth === 1), 'the logo loads under the CSP');
    await page.getByRole('img', { name: 'Accent colour #0a7a3d' }).waitFor();
    await page.getByLabel(/^Accent colour/).fill('green');
    await page.getByLabel(/^Accent colour/).evaluate((input: HTMLInputElement) => input.removeAttribute('pattern'));
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await page.getByRole('alert').filter({ hasText: 'accentColor: must be a colour as #rrggbb' }).waitFor();
    // Which final states it is notified of: paid always, failed and expired on request.
    assert.ok(await page.getByRole('checkbox', { name: 'Paid (always)' }).isChecked());
    await page.getByRole('checkbox', { name: 'Failed' }).check();
    await page.getByRole('button', { name: 'Save notifications' }).click();
    await page.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
    assert.deepEqual((await live.gateway.findMerchant(MERCHANT.merchantCode))?.notify, ['paid', 'failed']);

    const pending = await live.createLink({ method: 'QRIS' });
    const toFail = await live.createLink({ method: 'VA_BNI' });
    await page.goto(`${live.url}/sandbox/dashboard/orders/${toFail.platOrderNum}`);
    await page.getByRole('button', { name: 'Fail' }).click();
    await page.getByRole('status').filter({ hasText: 'FAILED' }).waitFor();
    await page.getByRole('link', { name: 'Sandbox dashboard' }).click();
    await page.getByLabel('Advance by minutes').fill('61');
    await page.getByRole('button', { name: 'Advance' }).click();
    await page.getByRole('status').filter({ hasText: 'The clock moved forward' }).waitFor();
    assert.equal((await live.gateway.findOrder(pending.platOrderNum))?.status, 'EXPIRED');
    await page.getByText('61 minutes ahead').waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('has no axe violations on any of its pages, in both languages, at 390 and 1280 px', async () => {
    const paid = await live.createLink({ method: 'VA_MANDIRI' });
    await live.gateway.pay(paid.platOrderNum);
    const picker = await live.createLink({ method: null });
    const base = `${live.url}/sandbox/dashboard`;
    const pages = [
      base,
      `${base}?number=${paid.orderNum}`,
      `${base}?number=NOTHING`,
      `${base}/orders/${paid.platOrderNum}`,
      `${base}/orders/${picker.platOrderNum}`,
      `${base}/orders/NO-SUCH`,
      `${base}/merchants/${MERCHANT.merchantCode}`,
      `${base}?lang=id`,
      `${base}/orders/${paid.platOrderNum}?lang=id`,
    ];
    for (const width of [390, 1280]) {
      const page = await openPage(width, { bypassCSP: true });
      for (const url of pages) {
        await page.goto(url);
        if (url.includes(paid.platOrderNum)) await reloadUntil(page, /(Attempt|Percobaan) 1 (of|dari)/);
        assert.deepEqual(await axeViolations(page), [], `${url} at ${width} px`);
        if (width === 390) await noHorizontalScroll(page);
        if (process.env.UPDATE_SCREENSHOTS && width === 1280 && url.endsWith(paid.platOrderNum)) {
          await page.screenshot({ path: `${DOCS}sandbox-dashboard.png`, fullPage: true });
        }
      }
    }
  });
});
