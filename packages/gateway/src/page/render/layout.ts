/**
 * The document shell shared by every page: head with the one stylesheet and the one script, the
 * sandbox banner, the merchant header with the language switch, and the footer.
 */
import { html, type SafeHtml } from '../html.ts';
import { LOCALES, messagesFor, type Locale } from '../i18n.ts';
import type { RenderContext } from './context.ts';

export interface DocumentParts {
  readonly title: string;
  /** Shown in the header; absent on pages that belong to no merchant (unknown order). */
  readonly merchantName?: string;
  /** The same page in another language; no switch when absent (e.g. the answer to a POST). */
  readonly languageHref?: (locale: Locale) => string;
  /** Attributes the client script reads from `<main>`, already built with `html`. */
  readonly mainAttributes?: SafeHtml;
  readonly body: SafeHtml;
  readonly footer?: SafeHtml;
}

function languageSwitch(ctx: RenderContext, href: (locale: Locale) => string): SafeHtml {
  const links = LOCALES.map((locale) => {
    const name = messagesFor(locale).languageName;
    return locale === ctx.locale
      ? html`<li><a href="${href(locale)}" lang="${locale}" hreflang="${locale}" aria-current="true">${name}</a></li>`
      : html`<li><a href="${href(locale)}" lang="${locale}" hreflang="${locale}">${name}</a></li>`;
  });
  return html`<nav class="lang" aria-label="${ctx.t.languageSwitchLabel}"><ul>${links}</ul></nav>`;
}

export function renderDocument(ctx: RenderContext, parts: DocumentParts): string {
  const { t, urls } = ctx;
  const script = urls.script ? html`<script src="${urls.script}" defer></script>` : '';
  const banner = ctx.sandbox ? html`<p class="sandbox-banner">${t.sandboxBanner}</p>` : '';
  const merchant = parts.merchantName ? html`<p class="merchant">${parts.merchantName}</p>` : '';
  return html`<!doctype html>
<html lang="${ctx.locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${parts.title}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${urls.stylesheet}">
${script}
</head>
<body${ctx.sandbox ? html` class="is-sandbox"` : ''}>
<header>
${banner}
<div class="top">
${merchant}
${parts.languageHref ? languageSwitch(ctx, parts.languageHref) : ''}
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
