/**
 * A browser page for the gateway's Chromium suites (hosted page, sandbox dashboard): a fresh
 * profile each time, with every CSP violation and page error collected in `problems`, so a test
 * can assert the page ran clean under its own policy.
 */
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';

export type WatchedPage = Page & { problems: string[] };

/** Open a page in a new context (kept in `contexts`, for the suite to close). */
export async function openWatchedPage(browser: Browser, contexts: BrowserContext[], options: BrowserContextOptions): Promise<WatchedPage> {
  const context = await browser.newContext({ viewport: { width: 390, height: 844 }, locale: 'en-US', ...options });
  contexts.push(context);
  context.setDefaultTimeout(15_000);
  const page = (await context.newPage()) as WatchedPage;
  page.problems = [];
  await page.exposeFunction('__reportViolation', (text: string) => page.problems.push(text));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => {
      (window as unknown as { __reportViolation(text: string): void }).__reportViolation(
        `CSP ${event.effectiveDirective} blocked ${event.blockedURI || 'inline'}`,
      );
    });
  });
  page.on('pageerror', (error) => page.problems.push(`page error: ${error.message}`));
  return page;
}
