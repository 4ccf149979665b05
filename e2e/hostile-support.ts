/**
 * Helpers of the hostile browser suite: the real demo on free ports, browser contexts that notice
 * any script an attack manages to run (a `__xss()` call reported to Node across navigations, and
 * any `alert`/`confirm`/`prompt` dialog), optionally with the page's CSP switched off so that
 * escaping is tested on its own, and an attacker's site on another origin.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startDemo, type Demo } from '../demo/src/demo.ts';

/** Markup that runs script if it is ever parsed as HTML: each calls `__xss(tag)` or opens a dialog. */
export const XSS_PAYLOADS: readonly string[] = [
  '<img src=x onerror=__xss("img")>',
  '<svg onload=__xss("svg")>',
  '"><script>__xss("tag")</script>',
  "'><img src=x onerror=alert(1)>",
  '<a href=javascript:__xss("a")>a</a>',
  '<iframe src=javascript:alert(2)>',
  '<details open ontoggle=__xss(1)>',
  '{{constructor.constructor("__xss(9)")()}}',
];

export interface Watched {
  readonly context: BrowserContext;
  /** Tags of every `__xss()` call, from any page of the context. */
  readonly hits: string[];
  /** Messages of every dialog that opened. */
  readonly dialogs: string[];
  /** Errors thrown by page scripts (a broken page is a finding too). */
  readonly errors: string[];
  newPage(): Promise<Page>;
}

export async function watchedContext(browser: Browser, options: { bypassCSP: boolean }): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, bypassCSP: options.bypassCSP });
  // Waits take the contexts' default of launchChromium (support.ts): generous, as a loaded machine needs.
  const hits: string[] = [];
  const dialogs: string[] = [];
  const errors: string[] = [];
  await context.exposeFunction('__xss', (tag: unknown) => {
    hits.push(String(tag));
  });
  const watch = (page: Page) => {
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss().catch(() => undefined);
    });
    page.on('pageerror', (error) => errors.push(error.message));
  };
  context.on('page', watch);
  return {
    context,
    hits,
    dialogs,
    errors,
    async newPage() {
      return context.newPage();
    },
  };
}

export interface HostileDemo {
  readonly demo: Demo;
  close(): Promise<void>;
}

export async function startHostileDemo(): Promise<HostileDemo> {
  const dataDir = mkdtempSync(join(tmpdir(), 'tombolbayar-hostile-'));
  const demo = await startDemo({ dataDir, shopPort: 0, gatewayPort: 0, log: () => {} });
  return {
    demo,
    async close() {
      await demo.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** Another site on 127.0.0.1 (another port, so another origin) serving one HTML page. */
export async function attackerSite(html: string): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
