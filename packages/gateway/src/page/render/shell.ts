/**
 * The parts every gateway document shares, the hosted page's (`layout.ts`) and the sandbox
 * dashboard's (`sandbox/dashboard/document.ts`): the head and the language switch. One home, so
 * the two stay one look under one CSP (stylesheets and a deferred script by URL, nothing inline).
 */
import { html, type SafeHtml } from '../html.ts';
import { LOCALES, messagesFor, type Locale } from '../i18n.ts';

export interface HeadParts {
  /** Text, or markup already built with `html`. */
  readonly title: SafeHtml | string;
  /** Stylesheet URLs, in cascade order. */
  readonly stylesheets: readonly string[];
  /** A deferred script's URL, when the page has one. */
  readonly script?: string | undefined;
}

/** `<!doctype html>`, `<html lang>` and the whole `<head>`: the start of every gateway document. */
export function documentStart(locale: Locale, { title, stylesheets, script }: HeadParts): SafeHtml {
  const links = stylesheets.map((href) => html`<link rel="stylesheet" href="${href}">`);
  return html`<!doctype html>
<html lang="${locale}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${title}</title>
<link rel="icon" href="data:,">
${links}
${script ? html`<script src="${script}" defer></script>` : ''}
</head>`;
}

/** Links to the same page in every language, the current one marked. */
export function languageSwitch(current: Locale, label: string, href: (locale: Locale) => string): SafeHtml {
  const links = LOCALES.map((locale) => {
    const name = messagesFor(locale).languageName;
    const marked = locale === current ? html` aria-current="true"` : '';
    return html`<li><a href="${href(locale)}" lang="${locale}" hreflang="${locale}"${marked}>${name}</a></li>`;
  });
  return html`<nav class="lang" aria-label="${label}"><ul>${links}</ul></nav>`;
}
