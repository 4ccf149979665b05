/**
 * End-to-end harness: the real demo (gateway in sandbox mode + shop with the plug-in) on free
 * ports in a fresh data directory, and Debian's Chromium driven by playwright-core, acting as a
 * customer. Each final state is kept as a screenshot under e2e/artifacts/.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Page } from 'playwright-core';
import { startDemo, type Demo, type DemoOptions } from '../demo/src/demo.ts';

export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));

export const CHROMIUM_ARGS = [
  '--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update',
  '--disable-sync', '--no-first-run', '--disable-dev-shm-usage',
];

/**
 * How long a wait on a page state may take before the test fails (Playwright's default is 30 s).
 * Generous on purpose: the suites run side by side, and on a loaded machine a state comes later,
 * not never; a wait that is met returns at once whatever its deadline.
 */
export const STATE_TIMEOUT_MS = 60_000;

/**
 * Debian's Chromium, headless. playwright-core adds `--disable-back-forward-cache` to its launch
 * arguments; `bfcache: true` leaves it out, for the tests that need the real back/forward cache
 * (see `restoredFromBfcache`). Every context it opens waits up to `STATE_TIMEOUT_MS` by default.
 */
export async function launchChromium(options: { bfcache?: boolean } = {}): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: CHROMIUM_ARGS,
    ...(options.bfcache ? { ignoreDefaultArgs: ['--disable-back-forward-cache'] } : {}),
  });
  const newContext = browser.newContext.bind(browser);
  browser.newContext = async (contextOptions) => {
    const context = await newContext(contextOptions);
    context.setDefaultTimeout(STATE_TIMEOUT_MS);
    return context;
  };
  // `browser.newPage()` opens its context through the same method.
  return browser;
}

/**
 * Counts, in the page itself, the times it was shown again from the bfcache (`pageshow` with
 * `persisted`): a restored page keeps its JavaScript state, so the count survives only then. Call
 * before the first load of the page.
 */
export async function countBfcacheRestores(page: Page): Promise<void> {
  await page.addInitScript(() => {
    const w = window as unknown as { bfcacheRestores: number };
    w.bfcacheRestores = 0;
    addEventListener('pageshow', (event) => {
      if (event.persisted) w.bfcacheRestores += 1;
    });
  });
}

/** How many times the current document came back from the bfcache (see `countBfcacheRestores`). */
export function restoredFromBfcache(page: Page): Promise<number> {
  return page.evaluate(() => (window as unknown as { bfcacheRestores: number }).bfcacheRestores);
}

export interface Session {
  readonly demo: Demo;
  readonly page: Page;
  /** The demo's data directory (its gateway's orders, its keys). */
  readonly dataDir: string;
  close(): Promise<void>;
}

/**
 * The customer's browser: the viewport (default 1100 x 900) and the shop's language (`?lang=`;
 * the browser itself then asks for English, so only the shop's choice can make a page Indonesian).
 */
export interface ShopView {
  readonly width?: number;
  readonly height?: number;
  readonly lang?: 'en' | 'id';
}

/**
 * A fresh demo and a fresh browser context (its own storage, like a new customer). `beforeLoad`
 * runs on the page before the shop first loads (init scripts, say).
 */
export async function openShop(
  browser: Browser,
  options: Omit<DemoOptions, 'dataDir' | 'shopPort' | 'gatewayPort'> = {},
  beforeLoad?: (page: Page) => Promise<void>,
  view: ShopView = {},
): Promise<Session> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-e2e-'));
  const demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {}, ...options });
  const context = await browser.newContext({ viewport: { width: view.width ?? 1100, height: view.height ?? 900 }, ...(view.lang ? { locale: 'en-US' } : {}) });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  await beforeLoad?.(page);
  await page.goto(view.lang ? `${demo.shopUrl}/?lang=${view.lang}` : demo.shopUrl);
  return {
    demo,
    page,
    dataDir,
    async close() {
      await context.close();
      await demo.close();
      rmSync(dataDir, { recursive: true, force: true });
      if (problems.length) throw new Error(problems.join('\n'));
    },
  };
}

export async function addToCart(page: Page, productName: string, lang: 'en' | 'id' = 'en'): Promise<void> {
  await page.getByRole('button', { name: `${lang === 'id' ? 'Tambah ke keranjang' : 'Add to cart'}: ${productName}` }).click();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** The state `<pay-button id="pay">` reflects, once it is one of `states`. */
export async function buttonState(page: Page, states: readonly string[], timeout = 20_000): Promise<string> {
  await page.locator(states.map((state) => `#pay[state="${state}"]`).join(', ')).waitFor({ timeout });
  return (await page.locator('#pay').getAttribute('state'))!;
}

/** The shop's order list row of the newest order. */
export function newestOrderStatus(page: Page) {
  return page.locator('#order-rows tr').first().locator('td.status');
}

/** Sandbox API of the gateway, as a merchant's own test would call it. */
export async function sandbox(demo: Demo, path: string, body: unknown = {}): Promise<unknown> {
  const response = await fetch(`${demo.gatewayUrl}/sandbox/${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  if (!response.ok) throw new Error(`sandbox ${path}: HTTP ${response.status} ${await response.text()}`);
  return response.json();
}

/** On the hosted page: pick a method when asked, then press the sandbox's "Simulate payment". */
export async function payOnHostedPage(hosted: Page, method = 'BCA Virtual Account'): Promise<void> {
  await hosted.waitForURL(/\/pay\?orderNum=/);
  const picker = hosted.getByRole('button', { name: method, exact: true });
  if (await picker.count()) await picker.click();
  await hosted.getByRole('button', { name: 'Simulate payment' }).click();
}

/**
 * The plug-in's return page the browser is given (its HTML), once `target` goes back to the shop.
 * Every way back from the hosted page goes through the gateway's `/pay/leave` (which checks the
 * shop answers, then 303s to the return page); a redirected request is not routed, so the leave
 * request is, and the return page it points to is fetched with the browser's own headers, then
 * the browser follows the redirect as it would have. Read on its way: the page moves on at once
 * in the full-page flow, and its body is gone after that.
 */
export function returnPageOf(target: Page): Promise<string> {
  return new Promise((resolve, reject) => {
    target
      .route((url) => url.pathname === '/pay/leave', async (route) => {
        const response = await route.fetch({ maxRedirects: 0 });
        const location = response.headers()['location'];
        if (location && new URL(location, route.request().url()).pathname === '/pay/return') {
          const language = (await route.request().allHeaders())['accept-language'];
          const page = await target.context().request.get(new URL(location, route.request().url()).href, { headers: language ? { 'accept-language': language } : {}, maxRedirects: 0 });
          resolve(await page.text());
        }
        await route.fulfill({ response });
      })
      .catch(reject);
  });
}
