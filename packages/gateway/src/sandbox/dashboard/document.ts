/**
 * The sandbox dashboard's document shell and its fixed texts. It shares the hosted page's
 * stylesheet (one file, served by the page router) and its escaping `html` builder; it loads no
 * script at all: every action is a plain form, answered by a redirect back (POST-redirect-GET).
 */
import { html, type SafeHtml } from '../../page/html.ts';

/** Where the dashboard lives, relative to the gateway's root. */
export const DASHBOARD_PATH = '/sandbox/dashboard';

export const dashboardUrls = {
  home: (number?: string) => (number ? `${DASHBOARD_PATH}?number=${encodeURIComponent(number)}` : DASHBOARD_PATH),
  order: (platOrderNum: string, notice?: Notice) =>
    `${DASHBOARD_PATH}/orders/${encodeURIComponent(platOrderNum)}${notice ? `?notice=${notice}` : ''}`,
  orderAction: (platOrderNum: string, action: string) => `${DASHBOARD_PATH}/orders/${encodeURIComponent(platOrderNum)}/${action}`,
  resend: (id: string) => `${DASHBOARD_PATH}/deliveries/${encodeURIComponent(id)}/resend`,
  payNumber: `${DASHBOARD_PATH}/pay-number`,
  clock: `${DASHBOARD_PATH}/clock`,
  merchant: (merchantCode: string, notice?: Notice) =>
    `${DASHBOARD_PATH}/merchants/${encodeURIComponent(merchantCode)}${notice ? `?notice=${notice}` : ''}`,
  hostedPage: (platOrderNum: string) => `/pay?orderNum=${encodeURIComponent(platOrderNum)}`,
};

/** What a redirect back tells (the query's `notice`): fixed words only, nothing of the request. */
export const NOTICES = {
  paid: 'Payment simulated: the order is PAID and its notification is queued.',
  expired: 'The order is EXPIRED and its notification is queued.',
  failed: 'The order is FAILED and its notification is queued.',
  resent: 'The notification is queued again; refresh to see the new attempt.',
  'clock-advanced': 'The clock moved forward; overdue orders expired.',
  saved: 'Saved.',
} as const;
export type Notice = keyof typeof NOTICES;
export const isNotice = (value: unknown): value is Notice => typeof value === 'string' && Object.hasOwn(NOTICES, value);

export interface DashboardDocument {
  readonly title: string;
  readonly stylesheet: string;
  readonly body: SafeHtml;
  /** A confirmation (polite status) or a refusal (alert), shown above the content. */
  readonly notice?: Notice | undefined;
  readonly problem?: string | undefined;
}

export function renderDashboardDocument(doc: DashboardDocument): string {
  const notice = doc.notice ? html`<p class="dash-notice" role="status">${NOTICES[doc.notice]}</p>` : '';
  const problem = doc.problem ? html`<p class="dash-problem" role="alert">${doc.problem}</p>` : '';
  return html`<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex, nofollow">
<meta name="referrer" content="no-referrer">
<meta name="color-scheme" content="light">
<title>${doc.title} · sandbox dashboard</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${doc.stylesheet}">
</head>
<body class="is-sandbox dashboard">
<header>
<p class="sandbox-banner">SANDBOX: nothing here moves real money</p>
<nav class="top" aria-label="Dashboard"><a class="merchant" href="${DASHBOARD_PATH}">Sandbox dashboard</a></nav>
</header>
<main id="main">
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
