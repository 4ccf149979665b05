/**
 * The sandbox dashboard's document shell and its fixed texts. It shares the hosted page's
 * stylesheet (one file, served by the page router) and its escaping `html` builder. Every action
 * is a plain form, answered by a redirect back (POST-redirect-GET); its one script only reloads an
 * order page when its notifications change, and the front page when its figures do (`client.ts`).
 */
import { html, type SafeHtml } from '../../page/html.ts';
import type { Locale } from '../../page/i18n.ts';
import { documentStart, languageSwitch } from '../../page/render/shell.ts';
import type { DashboardMessages } from './messages.ts';

/** Where the dashboard lives, relative to the gateway's root. */
export const DASHBOARD_PATH = '/sandbox/dashboard';

export const dashboardUrls = {
  home: (number?: string) => (number ? `${DASHBOARD_PATH}?number=${encodeURIComponent(number)}` : DASHBOARD_PATH),
  order: (platOrderNum: string, notice?: Notice) =>
    `${DASHBOARD_PATH}/orders/${encodeURIComponent(platOrderNum)}${notice ? `?notice=${notice}` : ''}`,
  orderAction: (platOrderNum: string, action: string) => `${DASHBOARD_PATH}/orders/${encodeURIComponent(platOrderNum)}/${action}`,
  resend: (id: string) => `${DASHBOARD_PATH}/deliveries/${encodeURIComponent(id)}/resend`,
  payNumber: `${DASHBOARD_PATH}/pay-number`,
  script: (version: string) => `${DASHBOARD_PATH}/assets/dashboard.js?v=${version}`,
  deliveriesJson: (platOrderNum: string) => `/sandbox/deliveries?platOrderNum=${encodeURIComponent(platOrderNum)}`,
  figuresJson: `${DASHBOARD_PATH}/figures`,
  clock: `${DASHBOARD_PATH}/clock`,
  merchant: (merchantCode: string, notice?: Notice) =>
    `${DASHBOARD_PATH}/merchants/${encodeURIComponent(merchantCode)}${notice ? `?notice=${notice}` : ''}`,
  merchantNotify: (merchantCode: string) => `${DASHBOARD_PATH}/merchants/${encodeURIComponent(merchantCode)}/notify`,
  hostedPage: (platOrderNum: string) => `/pay?orderNum=${encodeURIComponent(platOrderNum)}`,
};

/** What a redirect back tells (the query's `notice`): fixed words only, nothing of the request. */
export const NOTICE_KEYS = ['paid', 'expired', 'failed', 'resent', 'clock-advanced', 'saved'] as const;
export type Notice = (typeof NOTICE_KEYS)[number];
export const isNotice = (value: unknown): value is Notice => NOTICE_KEYS.some((key) => key === value);

/** The language of a page and how to reach the same page in the others. */
export interface DashboardContext {
  readonly locale: Locale;
  readonly t: DashboardMessages;
  readonly languageHref: (locale: Locale) => string;
}

export interface DashboardDocument {
  readonly title: string;
  readonly stylesheet: string;
  /** The dashboard's script, when built. */
  readonly script?: string | undefined;
  /** Attributes its script reads from `<main>`, built with `html`. */
  readonly mainAttributes?: SafeHtml | undefined;
  readonly body: SafeHtml;
  /** A confirmation (polite status) or a refusal (alert), shown above the content. */
  readonly notice?: Notice | undefined;
  readonly problem?: string | undefined;
}

export function renderDashboardDocument(ctx: DashboardContext, doc: DashboardDocument): string {
  const { t } = ctx;
  const notice = doc.notice ? html`<p class="dash-notice" role="status">${t.notices[doc.notice]}</p>` : '';
  const problem = doc.problem ? html`<p class="dash-problem" role="alert">${doc.problem}</p>` : '';
  const title = html`${doc.title} · ${t.dashboard}`;
  return html`${documentStart(ctx.locale, { title, stylesheets: [doc.stylesheet], script: doc.script })}
<body class="is-sandbox dashboard">
<header>
<p class="sandbox-banner">${t.banner}</p>
<div class="top"><a class="merchant" href="${DASHBOARD_PATH}">${t.dashboard}</a>${languageSwitch(ctx.locale, t.languageSwitchLabel, ctx.languageHref)}</div>
</header>
<main id="main"${doc.mainAttributes ?? ''}>
${notice}${problem}
${doc.body}
</main>
</body>
</html>
`.value;
}

/** A colour swatch as an image (the page's CSP allows no inline style, and data: images are allowed). */
export function swatch(color: string, label: string): SafeHtml {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="24" height="24"><rect width="24" height="24" rx="4" fill="${color}"/></svg>`;
  return html`<img class="dash-swatch" width="24" height="24" alt="${label}" src="${`data:image/svg+xml,${encodeURIComponent(svg)}`}">`;
}

export const when = (ms: number | null): string => (ms === null ? '-' : new Date(ms).toISOString().replace('T', ' ').replace(/\.\d+Z$/, ' UTC'));
