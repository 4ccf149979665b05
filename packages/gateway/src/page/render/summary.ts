/**
 * The order summary (product, name, amounts) and the expiry countdown. Amounts are integers of
 * rupiah, printed with the protocol's `formatRupiah`.
 */
import { formatRupiah } from '@tombolbayar/protocol';
import type { PageOrder } from '../deps.ts';
import { html, type SafeHtml } from '../html.ts';
import { formatJakartaTime } from '../i18n.ts';
import { formatCountdown, isoDuration } from '../shared/countdown.ts';
import type { RenderContext } from './context.ts';

/** What the customer pays in total: the fee is added once a method fixed it. */
export function totalOf(order: PageOrder): number {
  return order.payMoney + (order.payFee ?? 0);
}

export function renderSummary(order: PageOrder, ctx: RenderContext): SafeHtml {
  const { t } = ctx;
  const fee = order.payFee === null ? html`<dd class="muted">${t.feeUnknown}</dd>` : html`<dd>${formatRupiah(order.payFee)}</dd>`;
  return html`<section class="card summary" aria-labelledby="summary-heading">
<h2 id="summary-heading" class="visually-hidden">${t.summaryHeading}</h2>
<p class="product">${order.productDetail}</p>
<dl>
<div><dt>${t.billedTo}</dt><dd>${order.name}</dd></div>
<div><dt>${t.orderNumber}</dt><dd class="mono">${order.orderNum}</dd></div>
<div><dt>${t.amount}</dt><dd>${formatRupiah(order.payMoney)}</dd></div>
<div><dt>${t.fee}</dt>${fee}</div>
<div class="total"><dt>${t.total}</dt><dd id="total">${formatRupiah(totalOf(order))}</dd></div>
</dl>
</section>`;
}

/**
 * Time left, counted from the gateway's clock (which the sandbox can move), not the browser's:
 * the client script ticks from `data-remaining-ms` using its own monotonic clock.
 */
export function renderCountdown(order: PageOrder, ctx: RenderContext, now: number): SafeHtml {
  const { t } = ctx;
  const remaining = Math.max(0, order.expiresAt - now);
  const days = { one: t.day, other: t.days };
  return html`<div class="countdown">
<p>${t.payWithin} <time class="timer" role="timer" datetime="${isoDuration(remaining)}" data-remaining-ms="${remaining}" data-day="${days.one}" data-days="${days.other}">${formatCountdown(remaining, days)}</time></p>
<p class="muted">${t.expiresAt(formatJakartaTime(order.expiresAt, ctx.locale))}</p>
</div>`;
}
