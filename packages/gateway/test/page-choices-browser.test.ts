/**
 * The hosted page's ways out and its merchant's look, in Chromium against the real gateway
 * (`createGateway`, SQLite, sandbox), at 390 and 1280 px, in English and Indonesian: changing the
 * method before paying, going back to the shop without paying, the language the shop asked for
 * (`?lang=`) winning over the browser's and staying through every step, the merchant's logo,
 * colour and support contact (set through the sandbox dashboard, as a merchant does), one
 * reference, tap targets of at least 44 px, axe, and the CSP with no violation.
 *
 * `UPDATE_SCREENSHOTS=1` also writes docs/hosted-page.png (390 px, English), the README's picture.
 */
import { after, afterEach, before, beforeEach, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { crc32, deflateSync } from 'node:zlib';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { contrastRatio, parseHexColor, readableAccent, toHex } from '../src/page/brand.ts';
import { MERCHANT, launchChromium, startLiveGateway, type LiveGateway } from './page-support.ts';
import { openWatchedPage, type WatchedPage } from './support/watched-page.ts';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const DOCS = fileURLToPath(new URL('../../../docs/', import.meta.url));
const BRAND = { displayName: 'Toko Kopi Senja', accentColor: '#c2410c', supportContact: 'halo@kopisenja.example · 0812 3456 7890' } as const;

/** A 48 × 48 PNG of our own (a disc in the brand colour on white), as a data URL: no third-party asset. */
function logoDataUrl(): string {
  const size = 48;
  const [r, g, b] = parseHexColor(BRAND.accentColor)!;
  const rows: Buffer[] = [];
  for (let y = 0; y < size; y += 1) {
    const row = Buffer.alloc(1 + size * 3, 255);
    row[0] = 0;
    for (let x = 0; x < size; x += 1) {
      if ((x - 23.5) ** 2 + (y - 23.5) ** 2 <= 22 ** 2) row.set([r, g, b], 1 + x * 3);
    }
    rows.push(row);
  }
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'latin1'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const crc = Buffer.alloc(4);
    crc.writeUInt32BE(crc32(body));
    return Buffer.concat([length, body, crc]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const png = Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(rows))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
  return `data:image/png;base64,${png.toString('base64')}`;
}

/** What the customer reads, per language. */
const WORDS = {
  en: {
    browserLocale: 'id-ID',
    choose: 'Choose how to pay',
    payWithBca: 'Pay with BCA Virtual Account',
    payWithQris: 'Pay with QRIS',
    change: 'Choose another method',
    back: `Back to ${BRAND.displayName} without paying`,
    support: `Questions about this order? Contact ${BRAND.displayName}:`,
    details: 'Details for support',
    orderNumber: 'Order number',
  },
  id: {
    browserLocale: 'en-US',
    choose: 'Pilih metode pembayaran',
    payWithBca: 'Bayar dengan BCA Virtual Account',
    payWithQris: 'Bayar dengan QRIS',
    change: 'Ganti metode pembayaran',
    back: `Kembali ke ${BRAND.displayName} tanpa membayar`,
    support: `Ada pertanyaan tentang pesanan ini? Hubungi ${BRAND.displayName}:`,
    details: 'Detail untuk layanan pelanggan',
    orderNumber: 'Nomor pesanan',
  },
} as const;

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
  // As the merchant does on the sandbox dashboard's merchant page.
  const response = await fetch(`${live.url}/sandbox/dashboard/merchants/${MERCHANT.merchantCode}`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ ...BRAND, logo: logoDataUrl() }).toString(),
  });
  assert.equal(response.status, 303, 'branding saved');
});
afterEach(async () => {
  await Promise.all(contexts.splice(0).map((context) => context.close()));
  await live.close();
});

/** A fresh profile whose browser language is the other one; CSP violations and page errors are collected. */
function openPage(width: number, browserLocale: string): Promise<WatchedPage> {
  return openWatchedPage(browser, contexts, { viewport: { width, height: 844 }, locale: browserLocale });
}

/** axe, run through the DevTools protocol (not a script tag), so the page keeps its own CSP. */
async function axeViolations(page: Page): Promise<string[]> {
  const { violations, passes } = await page.evaluate(async (source) => {
    // eslint-disable-next-line no-new-func
    new Function(source)();
    type Result = Array<{ id: string; nodes: Array<{ target: unknown }> }>;
    const axe = (window as unknown as { axe: { run(options: object): Promise<{ violations: Result; passes: Result }> } }).axe;
    const result = await axe.run({ runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] } });
    return { violations: result.violations.map((v) => `${v.id}: ${JSON.stringify(v.nodes.map((n) => n.target))}`), passes: result.passes.length };
  }, AXE_SOURCE);
  assert.ok(passes > 10, `axe ran its checks (${passes} passed)`);
  return violations;
}

/** Every control a customer taps that is not a link inside running text: at least 44 × 44 px. */
async function smallTargets(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const controls = document.querySelectorAll<HTMLElement>('button:not([hidden]), summary, .lang a, .back-link, a.button, .refresh');
    const small: string[] = [];
    for (const control of controls) {
      const box = control.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.height < 44 || box.width < 44) small.push(`${control.tagName.toLowerCase()} "${control.textContent?.trim()}" ${Math.round(box.width)}x${Math.round(box.height)}`);
    }
    return small;
  });
}

async function checkScreen(page: Page & { problems: string[] }, what: string): Promise<void> {
  assert.deepEqual(await axeViolations(page), [], `axe: ${what}`);
  assert.deepEqual(await smallTargets(page), [], `tap targets: ${what}`);
  assert.deepEqual(page.problems, [], `CSP and errors: ${what}`);
}

describe('a logo at a URL', () => {
  it('loads from the merchant’s origin, which the page’s CSP allows for that page only', async () => {
    const logo = `${live.shopUrl}/logo.png`;
    const saved = await fetch(`${live.url}/sandbox/dashboard/merchants/${MERCHANT.merchantCode}`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ ...BRAND, logo }).toString(),
    });
    assert.equal(saved.status, 303);
    const link = await live.createLink({ method: null });
    const page = await openPage(390, 'en-US');
    const response = await page.goto(link.url);
    assert.match(response?.headers()['content-security-policy'] ?? '', new RegExp(`img-src 'self' data: ${live.shopUrl.replace(/[.]/g, '\\.')};`));
    await page.getByRole('heading', { name: 'Choose how to pay' }).waitFor();
    await page.waitForFunction(() => (document.querySelector('header img.logo') as HTMLImageElement | null)?.complete === true);
    assert.equal(await page.locator('header img.logo').evaluate((img: HTMLImageElement) => img.naturalWidth), 1, 'the logo loaded');
    assert.equal(await page.locator('header img.logo').getAttribute('src'), logo);
    assert.deepEqual(page.problems, []);
  });
});

for (const width of [390, 1280]) {
  for (const locale of ['en', 'id'] as const) {
    const words = WORDS[locale];
    describe(`hosted page at ${width} px in ${locale}`, () => {
      it('wears the merchant’s name, logo, colour and support line, and shows one reference', async () => {
        const link = await live.createLink({ method: null });
        const page = await openPage(width, words.browserLocale);
        const response = await page.goto(`${link.url}&lang=${locale}`);
        assert.equal(response?.headers()['content-security-policy']?.includes("style-src 'self';"), true, 'the CSP is the strict one');
        await page.getByRole('heading', { name: words.choose }).waitFor();
        assert.equal(await page.locator('html').getAttribute('lang'), locale, 'the shop’s ?lang= wins over the browser’s language');

        const header = page.locator('header .merchant');
        assert.equal((await header.innerText()).trim(), BRAND.displayName);
        assert.equal(await page.locator('header img.logo').evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth), 48, 'the logo loaded');
        const stripe = await page.locator('header').evaluate((el) => getComputedStyle(el).borderTopColor);
        assert.equal(stripe, 'rgb(194, 65, 12)', 'the brand colour as chosen, on the stripe');
        const markColour = await page.locator('.method .mark').first().evaluate((el) => getComputedStyle(el).color);
        const accent = toHex(readableAccent(parseHexColor(BRAND.accentColor)!));
        const [r, g, b] = parseHexColor(accent)!;
        assert.equal(markColour, `rgb(${r}, ${g}, ${b})`, 'marks and controls in the readable shade of it');
        assert.ok(contrastRatio([r, g, b], [255, 255, 255]) >= 4.5);
        assert.equal(await page.locator('.method svg.mark').count(), await page.locator('.method').count(), 'every method has a mark');

        await page.getByText(words.support).waitFor();
        await page.getByText(BRAND.supportContact).waitFor();
        assert.equal(await page.getByText(link.platOrderNum).isVisible(), false, 'the gateway reference is folded away');
        await page.getByText(link.orderNum, { exact: true }).waitFor();
        await page.locator('.support-details summary').click();
        assert.equal(await page.getByText(link.platOrderNum).isVisible(), true, 'and there for support');
        await checkScreen(page, 'picker');
        if (width === 390 && locale === 'en' && process.env.UPDATE_SCREENSHOTS === '1') {
          await page.getByRole('button', { name: 'BCA Virtual Account' }).click();
          await page.getByRole('heading', { name: words.payWithBca }).waitFor();
          await page.screenshot({ path: `${DOCS}hosted-page.png`, fullPage: true, animations: 'disabled' });
        }
      });

      it('after choosing a method by keyboard, focus is on its instructions and Tab goes on to copying the number, not back to the top', async () => {
        const link = await live.createLink({ method: null });
        const page = await openPage(width, words.browserLocale);
        await page.goto(`${link.url}&lang=${locale}`);
        await page.getByRole('button', { name: 'BCA Virtual Account' }).focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: words.payWithBca }).waitFor();
        await page.waitForFunction(() => document.activeElement?.id === 'method-heading');
        assert.equal(new URL(page.url()).hash, '', 'the address keeps no fragment');
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement?.className), 'copy');
        await checkScreen(page, 'instructions, focused');
      });

      it('changes the method before paying, keeping the language through every step', async () => {
        const link = await live.createLink({ method: null });
        const page = await openPage(width, words.browserLocale);
        await page.goto(`${link.url}&lang=${locale}`);
        await page.getByRole('button', { name: 'BCA Virtual Account' }).click();
        await page.getByRole('heading', { name: words.payWithBca }).waitFor();
        const first = await live.gateway.findOrder(link.platOrderNum);
        assert.equal(first?.method, 'VA_BCA');
        assert.equal(await page.locator('#pay-code').textContent(), first?.vaNumber);
        await checkScreen(page, 'instructions');

        await page.getByRole('button', { name: words.change }).click();
        await page.getByRole('heading', { name: words.choose }).waitFor();
        const released = await live.gateway.findOrder(link.platOrderNum);
        assert.deepEqual([released?.status, released?.method, released?.vaNumber, released?.payFee], ['PENDING', null, null, null], 'the VA no longer exists');
        assert.equal(await page.locator('html').getAttribute('lang'), locale);

        await page.getByRole('button', { name: 'QRIS' }).click();
        await page.getByRole('heading', { name: words.payWithQris }).waitFor();
        await page.reload();
        await page.getByRole('heading', { name: words.payWithQris }).waitFor();
        assert.equal(await page.locator('html').getAttribute('lang'), locale, 'a reload keeps the language');
        assert.equal((await live.gateway.findOrder(link.platOrderNum))?.method, 'QRIS');

        await page.getByRole('button', { name: 'Simulate payment' }).or(page.getByRole('button', { name: 'Simulasikan pembayaran' })).click();
        await page.locator('.outcome-paid').waitFor();
        await page.locator('button.stay').click();
        assert.equal(await page.getByRole('button', { name: words.change }).count(), 0, 'nothing to change once paid');
        assert.equal(await page.getByRole('link', { name: words.back }).count(), 0, 'no "without paying" once paid');
        assert.equal(await page.locator('html').getAttribute('lang'), locale);
        await checkScreen(page, 'paid');
      });

      it('goes back to the shop without paying, and the order stays open', async () => {
        const link = await live.createLink({ method: 'VA_BRI' });
        const page = await openPage(width, words.browserLocale);
        await page.goto(`${link.url}&lang=${locale}`);
        const back = page.getByRole('link', { name: words.back });
        await back.waitFor();
        await back.click();
        await page.getByRole('heading', { name: 'Back at the shop' }).waitFor();
        assert.equal(page.url(), `${live.shopUrl}/return?order=${link.orderNum}`);
        assert.equal((await live.gateway.findOrder(link.platOrderNum))?.status, 'PENDING');
        assert.deepEqual(page.problems, []);

        // Later the order runs out: the page says so, and the way back no longer says "without paying".
        await live.gateway.expire(link.platOrderNum);
        await page.goto(`${link.url}&lang=${locale}`);
        await page.locator('.outcome-expired').waitFor();
        assert.equal(await page.getByRole('link', { name: words.back }).count(), 0);
        assert.equal(await page.getByRole('button', { name: words.change }).count(), 0);
        await checkScreen(page, 'expired');
      });
    });
  }
}
