/**
 * The browser side of the return tests: Debian's Chromium (or `CHROME_PATH`), headless, and a
 * checkout page that records the messages it gets and acknowledges `tombolbayar:return` as
 * `<pay-button>` does (echoing it to `event.source` at `event.origin`), unless `?silent`.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHECKOUT_PAGE = `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="data:,"><title>Checkout</title></head><body>
<h1>Checkout</h1>
<script>
  window.__messages = [];
  window.__silent = location.search.includes('silent');
  window.addEventListener('message', (event) => {
    window.__messages.push({ origin: event.origin, data: event.data });
    // As <pay-button> does: acknowledge the return, so the return page may close.
    if (!window.__silent && event.data && event.data.type === 'tombolbayar:return') {
      event.source.postMessage(event.data, event.origin);
    }
  });
</script></body></html>`;

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROME_PATH ?? '/usr/bin/chromium',
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-dev-shm-usage'],
  });
}
