/**
 * Issue 21's "done when", as a developer does it: a `<pay-va>` number shown on the demo shop's
 * page is paid by that number from the sandbox dashboard (and from the CLI), the shop ends paid,
 * and the dashboard shows the notification and its resend.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { after, before, describe, it } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { addToCart, launchChromium, newestOrderStatus, openShop, screenshot, type Session } from './support.ts';

const BIN = fileURLToPath(new URL('../packages/gateway/bin/tombolbayar-gateway.js', import.meta.url));
const GUARD = pathToFileURL(createRequire(import.meta.url).resolve('@tombolbayar/test-support/loopback-guard-preload')).href;

let browser: Browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  await browser?.close();
});

/** The `tombolbayar-gateway` CLI, as a developer runs it in a second terminal. */
function cli(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', GUARD, BIN, ...args], { stdio: 'pipe', env: { ...process.env, DATABASE_URL: '' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** `deliveries --follow`, read until a line matches `pattern` (30 s at most), then stopped. */
function followUntil(url: string, pattern: RegExp): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', GUARD, BIN, 'deliveries', '--follow', '--url', url], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, DATABASE_URL: '' } });
    let output = '';
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`deliveries --follow never printed ${pattern}:\n${output}`));
    }, 30_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      if (!pattern.test(output)) return;
      clearTimeout(timer);
      child.kill();
      resolve(output);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('error', reject);
  });
}

/** A `<pay-va>` number on the shop's page, read from the page as the customer sees it. */
async function vaOnShopPage(session: Session): Promise<string> {
  const { page, demo } = session;
  await addToCart(page, 'Kopi Toraja, 1 kg');
  await page.getByText('Or get a payment number right here').click();
  await page.getByLabel('Payment method').selectOption('VA_BNI');
  await page.locator('pay-va button').first().click();
  await page.locator('pay-va').and(page.locator('[state="pending"]')).waitFor();
  const orderNum = (await page.locator('#order-rows tr').first().getAttribute('data-order-num'))!;
  const vaNumber = (await demo.shop.payments.getOrder(orderNum))?.vaNumber;
  assert.ok(vaNumber);
  await page.locator('pay-va').getByText(vaNumber).first().waitFor();
  return vaNumber;
}

async function endsPaid(page: Page): Promise<void> {
  await page.locator('pay-va').getByText('Payment received').waitFor({ timeout: 30_000 });
  await newestOrderStatus(page).filter({ hasText: 'paid' }).waitFor();
}

describe('the sandbox, by a <pay-va> number', () => {
  it('paid from the dashboard: the shop ends paid; the dashboard shows the delivery and its resend', async () => {
    const session = await openShop(browser);
    try {
      const vaNumber = await vaOnShopPage(session);
      const dashboard = await session.page.context().newPage();
      await dashboard.goto(`${session.demo.gatewayUrl}/sandbox/dashboard`);
      await dashboard.getByLabel('VA number or payment code').fill(vaNumber);
      await dashboard.getByRole('button', { name: 'Pay', exact: true }).click();
      await dashboard.getByRole('status').filter({ hasText: 'Payment simulated' }).waitFor();
      await endsPaid(session.page);
      await dashboard.getByText(/Attempt 1 of .*: HTTP 200, acknowledged/).waitFor({ timeout: 30_000 });
      await dashboard.getByRole('button', { name: 'Resend' }).click();
      await dashboard.getByText(/Attempt 2 of .*: HTTP 200, acknowledged/).waitFor({ timeout: 30_000 });
      await screenshot(dashboard, 'sandbox-dashboard-va-paid');
      assert.equal(session.demo.shop.store.sales(), 1, 'the resend sells nothing twice');
      await dashboard.close();
    } finally {
      await session.close();
    }
  });

  it('paid from the CLI: the shop ends paid; `deliveries` lists the attempt', async () => {
    const session = await openShop(browser);
    try {
      const vaNumber = await vaOnShopPage(session);
      const url = session.demo.gatewayUrl;
      const paid = await cli(['pay', vaNumber, '--url', url]);
      assert.equal(paid.code, 0, paid.stderr);
      assert.match(paid.stdout, new RegExp(`VA_BNI ${vaNumber}\\) is now PAID`));
      await endsPaid(session.page);
      // The attempt is recorded once the shop has answered: followed as it happens, not polled.
      await followUntil(url, /attempt 1: HTTP 200, acknowledged/);
    } finally {
      await session.close();
    }
  });
});
