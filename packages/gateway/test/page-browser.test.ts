/**
 * The hosted page in Chromium, against the real gateway (`createGateway`, SQLite, sandbox mode):
 * payment links are created with signed `POST /gateway/prepaidOrder` requests, as a merchant does,
 * and the customer's side is driven through the browser like a person would (clicks, keyboard).
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRequire } from 'node:module';
import QRCode from 'qrcode';
import { formatRupiah } from '@tombolbayar/protocol';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { hasValidCrc } from '../src/internal.ts';
import { QR_OPTIONS } from '../src/page/qr.ts';
import { HOSTILE_MERCHANT, MERCHANT, launchChromium, startLiveGateway, type LiveGateway } from './page-support.ts';
import { eventually } from './support/receiver.ts';
import { openWatchedPage, type WatchedPage } from './support/watched-page.ts';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

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

/** A fresh browser profile; CSP violations and page errors are collected for every page. */
function openPage(options: BrowserContextOptions = {}): Promise<WatchedPage> {
  return openWatchedPage(browser, contexts, options);
}

async function orderOf(platOrderNum: string) {
  const order = await live.gateway.findOrder(platOrderNum);
  assert.ok(order, `order ${platOrderNum} exists`);
  return order;
}

describe('hosted page in Chromium', () => {
  it('shows the VA number of a fixed-method link, and the copy button copies it', async () => {
    const link = await live.createLink({ method: 'BCA' });
    const page = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(link.url);
    await page.getByRole('heading', { name: 'Pay with BCA Virtual Account' }).waitFor();
    const { vaNumber, payFee } = await orderOf(link.platOrderNum);
    assert.match(vaNumber ?? '', /^\d{16}$/);
    assert.equal(await page.locator('#pay-code').textContent(), vaNumber);
    assert.equal(await page.locator('#total').textContent(), formatRupiah(150000 + (payFee ?? 0)));
    await page.getByRole('button', { name: 'Copy virtual account number' }).click();
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), vaNumber);
    assert.deepEqual(page.problems, []);
  });

  it('fixes the method picked on the page, shows its instructions, pays and lands on redirectUrl', async () => {
    const link = await live.createLink({ method: null });
    const page = await openPage();
    await page.goto(link.url);
    await page.getByRole('heading', { name: 'Choose how to pay' }).waitFor();
    assert.equal(await page.getByRole('button', { name: 'Simulate payment' }).count(), 0, 'no payment before a method');
    await page.getByRole('button', { name: 'Mandiri Virtual Account' }).click();
    await page.getByRole('heading', { name: 'Pay with Mandiri Virtual Account' }).waitFor();
    assert.equal(page.url(), `${link.url}&lang=en`, 'POST-redirect-GET back to the link, in the language the form was read in');
    const order = await orderOf(link.platOrderNum);
    assert.equal(order.method, 'VA_MANDIRI');
    assert.equal(await page.locator('#pay-code').textContent(), order.vaNumber);
    await page.getByText('Choose Bayar/Beli > Multipayment.').waitFor();

    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    assert.equal((await orderOf(link.platOrderNum)).status, 'PAID');
    const back = page.getByRole('link', { name: `Return to ${MERCHANT.name}` });
    // Through the gateway's check that the shop answers, then to redirectUrl exactly.
    assert.equal(await back.getAttribute('href'), `/pay/leave?orderNum=${link.platOrderNum}&lang=en`);
    await page.waitForURL(order.redirectUrl ?? '');
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('pays a fixed-method link with "Simulate payment" and returns after a visible countdown', async () => {
    const link = await live.createLink({ method: 'VA_BNI' });
    const page = await openPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await page.getByText(`Returning to ${MERCHANT.name} in`).waitFor();
    await page.waitForURL(`${live.shopUrl}/return?order=${link.orderNum}`);
  });

  it('the shop is down at the moment of return: the customer stays on the gateway\'s receipt (order number, amount, a link that tries again), never a browser error page', async () => {
    // A port nothing listens on: a server had it a moment ago.
    const closed = await new Promise<string>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo;
        server.close(() => resolve(`http://127.0.0.1:${port}/return`));
      });
    });
    const link = await live.createLink({ method: 'VA_BCA', redirectUrl: closed });
    const page = await openPage();
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    // The automatic return tries, finds the shop down, and comes back here.
    await page.getByText('The shop cannot be reached right now.').waitFor({ timeout: 20_000 });
    assert.equal(new URL(page.url()).origin, live.url, 'still on the gateway');
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await page.getByText(link.orderNum, { exact: true }).waitFor();
    await page.getByText(formatRupiah((await orderOf(link.platOrderNum)).payMoney + 4000)).first().waitFor();
    assert.equal(await page.getByText(`Returning to ${MERCHANT.name} in`).isVisible(), false, 'no second automatic try into an error page');
    // The link tries again (still down: the same page, no error page).
    await page.getByRole('link', { name: `Return to ${MERCHANT.name}` }).click();
    await page.waitForURL(/notice=shop-unreachable/);
    await page.getByText('The shop cannot be reached right now.').waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('lets the customer stay on the paid page, and says it can be closed when there is no redirectUrl', async () => {
    const withReturn = await live.createLink({ method: 'EWALLET_OVO' });
    const page = await openPage();
    await page.goto(withReturn.url);
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('button', { name: 'Stay on this page' }).click();
    await page.getByRole('link', { name: `Return to ${MERCHANT.name}` }).waitFor();
    assert.equal(await page.getByText(`Returning to ${MERCHANT.name} in`).isVisible(), false);

    const without = await live.createLink({ method: 'RETAIL_ALFAMART', redirectUrl: null });
    await page.goto(without.url);
    await page.getByText('Show the payment code').waitFor();
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByText('You can close this page.').waitFor();
    assert.equal(await page.getByRole('link', { name: /Return to/ }).count(), 0);
  });

  it('renders QRIS as an image that is exactly the QR code of the order payload', async () => {
    const link = await live.createLink({ method: 'QRIS' });
    const page = await openPage();
    await page.goto(link.url);
    const image = page.getByRole('img', { name: /^QRIS code to pay Rp / });
    await image.waitFor();
    const payload = (await orderOf(link.platOrderNum)).vaNumber ?? '';
    assert.ok(hasValidCrc(payload), 'the payload is an EMVCo string with a valid CRC');
    const expected = QRCode.create(payload, { errorCorrectionLevel: QR_OPTIONS.errorCorrectionLevel }).modules;
    // Read the image back in the browser: one sample in the middle of every module.
    const seen = await image.evaluate(async (element: HTMLImageElement, geometry) => {
      await element.decode();
      const canvas = document.createElement('canvas');
      canvas.width = element.naturalWidth;
      canvas.height = element.naturalHeight;
      const context = canvas.getContext('2d');
      if (!context) throw new Error('no canvas');
      context.drawImage(element, 0, 0);
      const pixels = context.getImageData(0, 0, canvas.width, canvas.height).data;
      const scale = element.naturalWidth / (geometry.size + 2 * geometry.margin);
      const rows: string[] = [];
      for (let row = 0; row < geometry.size; row += 1) {
        let line = '';
        for (let column = 0; column < geometry.size; column += 1) {
          const x = Math.floor((column + geometry.margin + 0.5) * scale);
          const y = Math.floor((row + geometry.margin + 0.5) * scale);
          line += (pixels[(y * canvas.width + x) * 4] ?? 255) < 128 ? '1' : '0';
        }
        rows.push(line);
      }
      return rows;
    }, { size: expected.size, margin: QR_OPTIONS.margin });
    const want: string[] = [];
    for (let row = 0; row < expected.size; row += 1) {
      let line = '';
      for (let column = 0; column < expected.size; column += 1) line += expected.get(row, column) ? '1' : '0';
      want.push(line);
    }
    assert.deepEqual(seen, want);
    const download = page.getByRole('link', { name: 'Download the QR code' });
    assert.equal(await download.getAttribute('download'), `qris-${link.platOrderNum}.png`);
    assert.deepEqual(page.problems, []);
  });

  it('shows expiry and failure clearly, without sandbox buttons afterwards', async () => {
    const page = await openPage();
    const expiring = await live.createLink({ method: 'VA_PERMATA' });
    await page.goto(expiring.url);
    await page.getByRole('button', { name: 'Simulate expiry' }).click();
    await page.getByRole('heading', { name: 'This payment has expired' }).waitFor();
    assert.equal((await orderOf(expiring.platOrderNum)).status, 'EXPIRED');
    assert.equal(await page.getByRole('button', { name: /Simulate/ }).count(), 0);
    await page.getByRole('link', { name: `Return to ${MERCHANT.name}` }).waitFor();

    const failing = await live.createLink({ method: null });
    await page.goto(failing.url);
    await page.getByRole('button', { name: 'Simulate failure' }).click();
    await page.getByRole('heading', { name: 'Payment failed' }).waitFor();
    assert.equal((await orderOf(failing.platOrderNum)).status, 'FAILED');
    assert.equal(await page.getByRole('button', { name: /Simulate|Virtual Account/ }).count(), 0);
    assert.deepEqual(page.problems, []);
  });

  it('updates itself when the order is paid elsewhere, or expires on the gateway clock', async () => {
    const page = await openPage();
    const paid = await live.createLink({ method: 'EWALLET_DANA', redirectUrl: null });
    await page.goto(paid.url);
    await page.getByRole('heading', { name: 'Pay with DANA' }).waitFor();
    await live.gateway.pay(paid.platOrderNum);
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();

    const expiring = await live.createLink({ method: 'VA_CIMB' });
    await page.goto(expiring.url);
    assert.match((await page.locator('time.timer').textContent()) ?? '', /^59:\d\d$/);
    const advanced = await fetch(`${live.url}/sandbox/clock/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ minutes: 61 }),
    });
    assert.equal(advanced.status, 200);
    await page.getByRole('heading', { name: 'This payment has expired' }).waitFor();
    assert.deepEqual(page.problems, []);
  });

  it('speaks Indonesian from Accept-Language, switches to English without JS, and remembers it', async () => {
    const link = await live.createLink({ method: 'VA_BRI' });
    const page = await openPage({ locale: 'id-ID', javaScriptEnabled: false });
    await page.goto(link.url);
    assert.equal(await page.locator('html').getAttribute('lang'), 'id');
    await page.getByRole('heading', { name: `Bayar ke ${MERCHANT.name}` }).waitFor();
    await page.getByRole('button', { name: 'Simulasikan pembayaran' }).waitFor();
    await page.getByText('Pilih Transaksi Lain > Pembayaran > Lainnya > BRIVA.').waitFor();
    await page.getByRole('link', { name: 'English' }).click();
    await page.getByRole('heading', { name: `Pay ${MERCHANT.name}` }).waitFor();
    assert.equal(await page.locator('html').getAttribute('lang'), 'en');
    await page.goto(link.url);
    assert.equal(await page.locator('html').getAttribute('lang'), 'en', 'the choice is remembered');
    await page.getByRole('link', { name: 'Bahasa Indonesia' }).click();
    await page.getByRole('heading', { name: `Bayar ke ${MERCHANT.name}` }).waitFor();
  });

  it('works with JavaScript disabled: pick a method, pay, follow the link back', async () => {
    const link = await live.createLink({ method: null });
    const page = await openPage({ javaScriptEnabled: false });
    await page.goto(link.url);
    await page.getByRole('button', { name: 'QRIS', exact: true }).click();
    await page.getByRole('img', { name: /^QRIS code to pay/ }).waitFor();
    assert.equal(await page.getByRole('button', { name: /^Copy/ }).count(), 0, 'no copy button without JS');
    await page.getByRole('link', { name: 'Check payment status' }).click();
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await page.getByRole('link', { name: `Return to ${MERCHANT.name}` }).click();
    await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
  });

  it('is usable with the keyboard alone, with a visible focus ring', async () => {
    const link = await live.createLink({ method: null });
    const page = await openPage({ permissions: ['clipboard-read', 'clipboard-write'] });
    await page.goto(link.url);
    let focused = '';
    for (let i = 0; i < 20 && focused !== 'BCA Virtual Account'; i += 1) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    }
    assert.equal(focused, 'BCA Virtual Account', 'Tab reaches the method buttons');
    const outline = await page.evaluate(() => {
      const style = getComputedStyle(document.activeElement as Element);
      return `${style.outlineStyle} ${style.outlineWidth}`;
    });
    assert.equal(outline, 'solid 3px');
    await page.keyboard.press('Tab');
    assert.equal(await page.evaluate(() => document.activeElement?.textContent?.trim()), 'Mandiri Virtual Account');
    await page.keyboard.press('Shift+Tab');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Pay with BCA Virtual Account' }).waitFor();
    for (let i = 0; i < 20 && focused !== 'Copy'; i += 1) {
      await page.keyboard.press('Tab');
      focused = await page.evaluate(() => document.activeElement?.textContent?.trim() ?? '');
    }
    await page.keyboard.press('Enter');
    await page.getByRole('status').filter({ hasText: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), (await orderOf(link.platOrderNum)).vaNumber);
  });

  it('has no axe violations in any state, in both languages', async () => {
    // bypassCSP only here, so axe can be injected; the next test checks the CSP itself.
    const page = await openPage({ bypassCSP: true });
    const picker = await live.createLink({ method: null });
    const va = await live.createLink({ method: 'VA_DANAMON' });
    const qris = await live.createLink({ method: 'QRIS' });
    const paid = await live.createLink({ method: 'VA_MAYBANK', redirectUrl: null });
    await live.gateway.pay(paid.platOrderNum);
    const expired = await live.createLink({ method: 'RETAIL_ALFAMART' });
    await live.gateway.expire(expired.platOrderNum);
    const pages = [picker.url, va.url, qris.url, paid.url, expired.url, `${picker.url}&lang=id`, `${va.url}&lang=id`, `${live.url}/pay?orderNum=UNKNOWN`, `${live.url}/pay?orderNum=%3C%3E`];
    for (const url of pages) {
      await page.goto(url);
      await page.addScriptTag({ path: AXE_PATH });
      const violations = await page.evaluate(async () => {
        const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Array<{ id: string; nodes: Array<{ target: unknown }> }> }> } }).axe;
        const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
        return result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`);
      });
      assert.deepEqual(violations, [], url);
    }
  });

  it('enforces its CSP: the page runs with no violation, and an injected inline script does not run', async () => {
    const link = await live.createLink({ method: 'VA_SAMPOERNA' });
    const page = await openPage();
    const response = await page.goto(link.url);
    assert.match(response?.headers()['content-security-policy'] ?? '', /script-src 'self';/);
    await page.getByRole('button', { name: 'Copy virtual account number' }).waitFor();
    assert.equal(await page.locator('html').getAttribute('class'), 'js', 'our own script ran');
    assert.deepEqual(page.problems, [], 'a normal load reports no violation');

    // Tamper with the HTML in transit, keeping the gateway's headers: the inline script must not run.
    await page.route(link.url, async (route) => {
      const original = await route.fetch();
      const body = (await original.text()).replace('</main>', '<script>document.title = "INLINE RAN"</script><div id="inj" onclick="x()"></div></main>');
      await route.fulfill({ response: original, body });
    });
    await page.goto(link.url);
    await page.getByRole('button', { name: 'Copy virtual account number' }).waitFor();
    assert.notEqual(await page.title(), 'INLINE RAN');
    await eventually(() => page.problems.some((problem) => problem.startsWith('CSP script-src-elem blocked inline')) || undefined, 20_000, 'the inline script reported as blocked');
    const injected = await page.evaluate(() => {
      try {
        (document.body as HTMLElement).innerHTML = '<img src=x>';
        return 'innerHTML allowed';
      } catch (error) {
        return (error as Error).name;
      }
    });
    assert.equal(injected, 'TypeError', 'Trusted Types refuse string markup');
  });

  it('shows XSS payloads in the name, product and merchant name as text and runs nothing', async () => {
    const link = await live.createLink({
      merchantCode: HOSTILE_MERCHANT.merchantCode,
      method: null,
      productDetail: '<script>alert(1)</script>',
      name: '"><img src=x onerror=alert(1)>',
    });
    const page = await openPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(link.url);
    await page.getByText('<script>alert(1)</script>', { exact: true }).waitFor();
    await page.getByText('"><img src=x onerror=alert(1)>', { exact: true }).waitFor();
    await page.getByRole('heading', { name: `Pay ${HOSTILE_MERCHANT.name}` }).waitFor();
    await page.getByRole('button', { name: 'OVO' }).click();
    await page.getByRole('heading', { name: 'Pay with OVO' }).waitFor();
    await page.getByRole('button', { name: 'Simulate payment' }).click();
    await page.getByRole('heading', { name: 'Payment received' }).waitFor();
    await page.getByText(`to ${HOSTILE_MERCHANT.name} has been received`).waitFor();
    assert.equal(await page.locator('img[src="x"], script:not([src])').count(), 0);
    assert.deepEqual(dialogs, []);
    assert.deepEqual(page.problems, []);
  });
});
