/**
 * `npm run dev`, as a newcomer types it: it must start (Vite with the shop server and the sandbox
 * gateway inside it) and serve a shop that works in Chromium: the page's TypeScript goes through
 * Vite, the element through the plug-in, the catalogue through the shop's API.
 */
import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser } from 'playwright-core';
import { addToCart, launchChromium } from '../support.ts';
import { freePort } from '@tombolbayar/test-support/network';

const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** Poll until the dev server answers `/` (it first rebuilds the element, as `npm run dev` does). */
async function waitForShop(url: string, child: ChildProcess, output: () => string): Promise<void> {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`npm run dev exited with ${child.exitCode}:\n${output()}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`npm run dev did not serve ${url} within 120 s:\n${output()}`);
}

describe('npm run dev', () => {
  let child: ChildProcess;
  let browser: Browser;
  let shopUrl: string;
  let log = '';
  const dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-dev-'));

  before(async () => {
    const port = await freePort();
    shopUrl = `http://127.0.0.1:${port}`;
    child = spawn('npm', ['run', 'dev'], {
      cwd: REPO_ROOT,
      // Its own process group, so the whole tree (npm, sh, vite) is stopped by this test's pid.
      detached: true,
      env: { ...process.env, PORT: String(port), GATEWAY_PORT: '0', TOMBOLBAYAR_DATA_DIR: dataDir },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.stdout!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    child.stderr!.on('data', (chunk: Buffer) => (log += chunk.toString('utf8')));
    await waitForShop(shopUrl, child, () => log);
    browser = await launchChromium();
  });

  after(async () => {
    await browser?.close();
    if (child?.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      process.kill(-child.pid, 'SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('serves the shop: products from the API, the element defined, a cart that adds up', async () => {
    const page = await browser.newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(error.message));
    await page.goto(shopUrl);
    await page.locator('#product-list li').first().waitFor();
    assert.ok((await page.locator('#product-list li').count()) > 1, 'the catalogue is listed');
    assert.equal(await page.evaluate(() => customElements.get('pay-button') !== undefined), true, '<pay-button> is defined');
    await addToCart(page, 'Kopi Gayo, 250 g');
    assert.notEqual(await page.locator('#cart-total').textContent(), 'Rp 0');
    assert.deepEqual(problems, []);
    assert.doesNotMatch(log, /module runner has been closed|error when starting dev server/i);
    await page.close();
  });

  it('the page script is TypeScript served by Vite, with hot reload', async () => {
    const html = await (await fetch(shopUrl)).text();
    assert.match(html, /\/@vite\/client/, 'Vite injected its client');
    const main = await fetch(`${shopUrl}/main.ts`);
    assert.equal(main.status, 200);
    assert.match(main.headers.get('content-type') ?? '', /javascript/);
  });
});
