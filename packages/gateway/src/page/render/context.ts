/**
 * What every render function receives besides the order: the language, the mode, and where the
 * page's own routes and assets live (relative to wherever the host app mounted the router).
 */
import type { Locale, Messages } from '../i18n.ts';

export type SandboxAction = 'pay' | 'expire' | 'fail';

export interface PageUrls {
  /** The hosted page of an order, optionally in a given language. */
  page(platOrderNum: string, lang?: Locale): string;
  /**
   * The way back to the shop (`redirectUrl`), through the gateway: it checks the shop answers
   * first, and keeps the customer on this page when it does not (`shop-probe.ts`).
   */
  leave(platOrderNum: string, lang?: Locale): string;
  /** JSON status of an order, polled by the client script. */
  status(platOrderNum: string): string;
  /** Form target that fixes the method. */
  readonly chooseMethod: string;
  /** Form target that takes the method back so another can be chosen. */
  readonly changeMethod: string;
  /** The merchant's accent colour as a stylesheet (`rrggbb`, see `brand.ts`). */
  brandStylesheet(accent: string): string;
  /** Form target of the sandbox buttons. */
  readonly sandbox: string;
  /** Stylesheet and script, with a content version for caching; script absent if it failed to build. */
  readonly stylesheet: string;
  readonly script: string | undefined;
}

export interface RenderContext {
  readonly locale: Locale;
  readonly t: Messages;
  readonly sandbox: boolean;
  readonly urls: PageUrls;
  /** Seconds between the paid confirmation and the automatic return to `redirectUrl`. */
  readonly redirectDelaySeconds: number;
}

/** Builds the URL set for a mount point (`''` at the app root) and asset versions. */
export function pageUrls(base: string, versions: { css: string; js: string | undefined }): PageUrls {
  const root = `${base}/pay`;
  return {
    page: (platOrderNum, lang) =>
      `${root}?orderNum=${encodeURIComponent(platOrderNum)}${lang ? `&lang=${lang}` : ''}`,
    leave: (platOrderNum, lang) => `${root}/leave?orderNum=${encodeURIComponent(platOrderNum)}${lang ? `&lang=${lang}` : ''}`,
    status: (platOrderNum) => `${root}/status?orderNum=${encodeURIComponent(platOrderNum)}`,
    chooseMethod: `${root}/method`,
    changeMethod: `${root}/method/change`,
    brandStylesheet: (accent) => `${root}/assets/brand.css?accent=${encodeURIComponent(accent)}`,
    sandbox: `${root}/sandbox`,
    stylesheet: `${root}/assets/page.css?v=${versions.css}`,
    script: versions.js === undefined ? undefined : `${root}/assets/page.js?v=${versions.js}`,
  };
}
