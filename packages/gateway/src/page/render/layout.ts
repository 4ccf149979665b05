/**
 * The document shell shared by every page: head with the one stylesheet and the one script, the
 * sandbox banner, the merchant header (logo, name, accent colour) with the language switch, and
 * the footer.
 */
import { accentParam, logoOrigin } from '../brand.ts';
import type { PageBrand } from '../deps.ts';
import { html, safeHttpUrl, type SafeHtml } from '../html.ts';
import type { Locale } from '../i18n.ts';
import type { RenderContext } from './context.ts';
import { documentStart, languageSwitch } from './shell.ts';

export interface DocumentParts {
  readonly title: string;
  /** Shown in the header; absent on pages that belong to no merchant (unknown order). */
  readonly merchantName?: string;
  /** The merchant's logo and accent colour; the page's own look when absent. */
  readonly brand?: PageBrand;
  /** The same page in another language; no switch when absent (e.g. the answer to a POST). */
  readonly languageHref?: (locale: Locale) => string;
  /** Attributes the client script reads from `<main>`, already built with `html`. */
  readonly mainAttributes?: SafeHtml;
  readonly body: SafeHtml;
  readonly footer?: SafeHtml;
}

/**
 * A raster data URL or an absolute http(s) URL, as the branding form accepts; nothing else reaches
 * `src`. A URL only when its origin is one the page's CSP can name (`logoOrigin`, which the route
 * adds to `img-src`): never an image the policy would block.
 */
function logoSource(logo: string | null): string | undefined {
  if (!logo) return undefined;
  if (/^data:image\/(?:png|jpeg|gif|webp);base64,[A-Za-z0-9+/]+={0,2}$/.test(logo)) return logo;
  return logoOrigin(logo) ? safeHttpUrl(logo) : undefined;
}

export function renderDocument(ctx: RenderContext, parts: DocumentParts): string {
  const { t, urls } = ctx;
  const banner = ctx.sandbox ? html`<p class="sandbox-banner">${t.sandboxBanner}</p>` : '';
  const logoSrc = logoSource(parts.brand?.logo ?? null);
  const logo = logoSrc ? html`<img class="logo" src="${logoSrc}" alt="" width="40" height="40" referrerpolicy="no-referrer">` : '';
  // The logo is decoration next to the name, which is the text: alt="" so it is not read twice.
  const merchant = parts.merchantName ? html`<p class="merchant">${logo}<span>${parts.merchantName}</span></p>` : '';
  const accent = parts.brand?.accentColor ? accentParam(parts.brand.accentColor) : undefined;
  const stylesheets = accent ? [urls.stylesheet, urls.brandStylesheet(accent)] : [urls.stylesheet];
  return html`${documentStart(ctx.locale, { title: parts.title, stylesheets, script: urls.script })}
<body${ctx.sandbox ? html` class="is-sandbox"` : ''}${accent ? html` data-branded` : ''}>
<header>
${banner}
<div class="top">
${merchant}
${parts.languageHref ? languageSwitch(ctx.locale, t.languageSwitchLabel, parts.languageHref) : ''}
</div>
</header>
<main id="main"${parts.mainAttributes ?? ''}>
${parts.body}
</main>
${parts.footer ? html`<footer class="bottom">${parts.footer}</footer>` : ''}
</body>
</html>
`.value;
}
