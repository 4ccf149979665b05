/**
 * The end states (paid, expired, failed) and the "waiting for your payment" status line of a
 * pending order. After payment the customer goes back to `redirectUrl`: the link is always there
 * (it works without JS), and the client script follows it after a short visible countdown that
 * the customer can stop.
 */
import { formatRupiah } from '@tombolbayar/protocol';
import type { PageOrder } from '../deps.ts';
import { html, safeHttpUrl, type SafeHtml } from '../html.ts';
import { formatJakartaTime } from '../i18n.ts';
import type { RenderContext } from './context.ts';
import { totalOf } from './summary.ts';

/** The way back to `redirectUrl`, through the gateway's check that the shop answers (`urls.leave`). */
function leaveUrl(order: PageOrder, ctx: RenderContext): string | undefined {
  return safeHttpUrl(order.redirectUrl) && ctx.urls.leave(order.platOrderNum, ctx.locale);
}

function returnLink(order: PageOrder, ctx: RenderContext): SafeHtml {
  const target = leaveUrl(order, ctx);
  if (!target) return html`<p>${ctx.t.canClose}</p>`;
  return html`<p><a class="button" href="${target}" id="return-link">${ctx.t.returnNow(order.merchantName)}</a></p>`;
}

/**
 * Before paying: the way back to the shop, for a customer who changed their mind or came in the
 * full-page flow (no popup to close). The order stays open; nothing is cancelled.
 */
export function renderLeave(order: PageOrder, ctx: RenderContext): SafeHtml {
  const target = leaveUrl(order, ctx);
  if (!target) return html``;
  return html`<section class="leave" aria-label="${ctx.t.backToShop(order.merchantName)}">
<p><a class="back-link" href="${target}" id="leave-link">${ctx.t.backToShop(order.merchantName)}</a></p>
<p class="muted">${ctx.t.leaveHint}</p>
</section>`;
}

/** `autoReturn`: count down to the shop (not when the shop was just found down). */
export function renderPaid(order: PageOrder, ctx: RenderContext, autoReturn = true): SafeHtml {
  const { t } = ctx;
  const target = autoReturn ? leaveUrl(order, ctx) : undefined;
  const paidAt = order.paidAt === null ? '' : html`<p class="muted">${t.paidAt(formatJakartaTime(order.paidAt, ctx.locale))}</p>`;
  const auto = target
    ? html`<div class="auto-return" hidden data-redirect-url="${target}" data-delay-seconds="${ctx.redirectDelaySeconds}">
<p>${t.returningBefore(order.merchantName)} <span class="seconds">${ctx.redirectDelaySeconds}</span> ${t.returningAfter}</p>
<p><button type="button" class="link-button stay">${t.stay}</button></p>
</div>`
    : '';
  return html`<section class="card outcome outcome-paid" aria-labelledby="outcome-heading">
<h1 id="outcome-heading">${t.paidHeading}</h1>
<p>${t.paidBody(formatRupiah(totalOf(order)), order.merchantName)}</p>
${paidAt}
${auto}
${returnLink(order, ctx)}
</section>`;
}

export function renderClosed(order: PageOrder, ctx: RenderContext): SafeHtml {
  const { t } = ctx;
  const expired = order.status === 'EXPIRED';
  return html`<section class="card outcome ${expired ? 'outcome-expired' : 'outcome-failed'}" aria-labelledby="outcome-heading">
<h1 id="outcome-heading">${expired ? t.expiredHeading : t.failedHeading}</h1>
<p>${expired ? t.expiredBody(order.merchantName) : t.failedBody(order.merchantName)}</p>
${leaveUrl(order, ctx) ? returnLink(order, ctx) : ''}
</section>`;
}

/** Pending with a method: the page updates itself (script) or on the customer's refresh (no script). */
export function renderWaiting(order: PageOrder, ctx: RenderContext): SafeHtml {
  const { t } = ctx;
  return html`<section class="waiting" aria-labelledby="waiting-heading">
<h2 id="waiting-heading" class="waiting-heading">${t.waiting}</h2>
<p class="muted js-only" hidden>${t.autoUpdate}</p>
<p><a href="${ctx.urls.page(order.platOrderNum, ctx.locale)}" class="refresh">${t.refreshStatus}</a></p>
</section>`;
}
