/**
 * The hosted page of one order, in each of its states, composed from the section renderers.
 * Pure: everything it shows comes from its arguments, so it is unit-tested without a server.
 */
import type { PageNotice, PageOrder } from '../deps.ts';
import { html, type SafeHtml } from '../html.ts';
import type { QrImage } from '../qr.ts';
import type { RenderContext } from './context.ts';
import { renderDocument } from './layout.ts';
import { renderClosed, renderLeave, renderPaid, renderWaiting } from './outcome.ts';
import { renderInstructions } from './instructions.ts';
import { renderPicker } from './picker.ts';
import { renderSandboxControls } from './sandbox.ts';
import { renderCountdown, renderSummary } from './summary.ts';

export interface OrderPageInput {
  readonly order: PageOrder;
  /** The gateway's clock when the page was rendered. */
  readonly now: number;
  /** The outcome of the customer's last action, when it was refused. */
  readonly notice?: PageNotice | undefined;
  /** The QR image, for QRIS orders. */
  readonly qr?: QrImage | undefined;
}

function renderPending(input: OrderPageInput, ctx: RenderContext): SafeHtml {
  const { order, now, qr } = input;
  const body = order.method === null
    ? renderPicker(order, ctx)
    : html`${renderInstructions(order, order.method, ctx, qr)}${renderWaiting(order, ctx)}`;
  return html`<h1>${ctx.t.title(order.merchantName)}</h1>
${renderSummary(order, ctx)}
${renderCountdown(order, ctx, now)}
${body}
${renderLeave(order, ctx)}`;
}

/**
 * The support line: the merchant's contact when it set one, else who to ask. The gateway's own
 * reference is folded away: the customer knows their order by the shop's number (the summary),
 * and support may ask for this one.
 */
function renderSupport(order: PageOrder, ctx: RenderContext): SafeHtml {
  const { t } = ctx;
  const contact = order.brand.supportContact;
  const line = contact
    ? html`<p class="support">${t.supportWith(order.merchantName)} <span class="contact">${contact}</span></p>`
    : html`<p class="support">${t.supportGeneric(order.merchantName)}</p>`;
  return html`${line}
<details class="support-details">
<summary>${t.supportDetails}</summary>
<p>${t.reference}: <span class="mono">${order.platOrderNum}</span></p>
</details>`;
}

function renderBody(input: OrderPageInput, ctx: RenderContext): SafeHtml {
  const { order } = input;
  switch (order.status) {
    case 'PENDING':
      return renderPending(input, ctx);
    case 'PAID':
      // The shop was down a moment ago: no automatic return into an error page; the link retries.
      return html`${renderPaid(order, ctx, input.notice !== 'shop-unreachable')}${renderSummary(order, ctx)}`;
    case 'EXPIRED':
    case 'FAILED':
      return html`${renderClosed(order, ctx)}${renderSummary(order, ctx)}`;
  }
}

export function renderOrderPage(input: OrderPageInput, ctx: RenderContext): string {
  const { order } = input;
  const notice = input.notice ? html`<p class="notice" role="alert">${ctx.t.notices[input.notice]}</p>` : '';
  const title = {
    PENDING: ctx.t.title(order.merchantName),
    PAID: `${ctx.t.paidHeading} · ${order.merchantName}`,
    EXPIRED: `${ctx.t.expiredHeading} · ${order.merchantName}`,
    FAILED: `${ctx.t.failedHeading} · ${order.merchantName}`,
  }[order.status];
  return renderDocument(ctx, {
    title,
    merchantName: order.merchantName,
    brand: order.brand,
    languageHref: (locale) => ctx.urls.page(order.platOrderNum, locale),
    mainAttributes: html` data-status="${order.status}" data-method="${order.method ?? ''}" data-status-url="${ctx.urls.status(order.platOrderNum)}"`,
    body: html`${notice}${renderBody(input, ctx)}${renderSandboxControls(order, ctx)}`,
    footer: renderSupport(order, ctx),
  });
}
