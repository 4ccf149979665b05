/** The dashboard's front page: find an order, pay a number, move the clock, figures, orders, merchants. */
import { formatRupiah } from '@tombolbayar/protocol';
import type { Merchant, Order } from '../../domain/types.ts';
import { html, type SafeHtml } from '../../page/html.ts';
import { MAX_LOOKUP_TERM } from '../lookup.ts';
import { dashboardUrls, when } from './document.ts';
import { renderFiguresCard } from './figures-card.ts';
import type { Figures } from './figures.ts';
import type { DashboardMessages } from './messages.ts';

export interface HomeView {
  /** The number searched for, if any (then `orders` are its matches). */
  readonly number: string | undefined;
  readonly orders: readonly Order[];
  readonly merchants: readonly Merchant[];
  readonly clock: { readonly now: number; readonly offsetMinutes: number };
  /** The gateway's key figures; undefined when it runs with `metrics: false`. */
  readonly figures: Figures | undefined;
}

/**
 * The orders as a table; on a narrow screen (page.css, `.dash-orders`) each row stacks into a
 * two-by-two block of number and status, VA number and amount, each value under its label, and
 * the merchant, method and creation time (on the order's page too) are left out, so what a
 * developer looks for is in view at 390 px without scrolling sideways.
 */
function ordersTable(t: DashboardMessages, orders: readonly Order[], caption: string): SafeHtml {
  const c = t.columns;
  const rows = orders.map(
    (order) => html`<tr>
<th scope="row"><a href="${dashboardUrls.order(order.platOrderNum)}">${order.orderNum}</a></th>
<td class="dash-minor">${order.merchantCode}</td>
<td class="dash-cell-status"><span class="dash-status dash-status-${order.status.toLowerCase()}">${order.status}</span></td>
<td class="dash-minor">${order.method ?? '-'}</td>
<td class="mono dash-cell-va" data-label="${c.vaNumber}">${order.vaNumber ?? '-'}</td>
<td class="dash-cell-amount" data-label="${c.amount}">${formatRupiah(order.payMoney)}</td>
<td class="dash-minor">${when(order.createdAt)}</td>
</tr>`,
  );
  return html`<div class="dash-scroll" tabindex="0" role="region" aria-label="${caption}">
<table class="dash-orders">
<caption>${caption}</caption>
<thead><tr><th scope="col">${c.orderNumber}</th><th scope="col">${c.merchant}</th><th scope="col">${c.status}</th><th scope="col">${c.method}</th><th scope="col">${c.vaNumber}</th><th scope="col">${c.amount}</th><th scope="col">${c.created}</th></tr></thead>
<tbody>${rows}</tbody>
</table>
</div>`;
}

export function renderHome(t: DashboardMessages, view: HomeView): SafeHtml {
  const { number, orders, merchants, clock, figures } = view;
  const caption = number === undefined ? t.newestOrders(orders.length) : t.matchingOrders(number, orders.length);
  const list =
    orders.length === 0
      ? html`<p>${number === undefined ? t.noOrdersYet : t.noMatch}</p>`
      : ordersTable(t, orders, caption);
  const merchantItems = merchants.map(
    (merchant) => html`<li><a href="${dashboardUrls.merchant(merchant.merchantCode)}">${merchant.merchantCode}</a>${merchant.name ? html` <span class="muted">${merchant.name}</span>` : ''}</li>`,
  );
  return html`<h1>${t.dashboard}</h1>
<div class="dash-grid">
<section class="card" aria-labelledby="find-heading">
<h2 id="find-heading">${t.findHeading}</h2>
<form method="get" action="${dashboardUrls.home()}" role="search">
<label for="find-number">${t.findLabel}</label>
<div class="dash-row">
<input id="find-number" name="number" type="search" required maxlength="${MAX_LOOKUP_TERM}" autocomplete="off" spellcheck="false" value="${number ?? ''}">
<button type="submit">${t.find}</button>
</div>
</form>
</section>
<section class="card" aria-labelledby="pay-heading">
<h2 id="pay-heading">${t.payNumberHeading}</h2>
<form method="post" action="${dashboardUrls.payNumber}">
<label for="pay-number">${t.payNumberLabel}</label>
<div class="dash-row">
<input id="pay-number" name="number" type="text" inputmode="numeric" required maxlength="${MAX_LOOKUP_TERM}" autocomplete="off" spellcheck="false">
<button type="submit">${t.pay}</button>
</div>
</form>
</section>
<section class="card" aria-labelledby="clock-heading">
<h2 id="clock-heading">${t.clockHeading}</h2>
<p><strong>${t.gatewayTime(when(clock.now))}</strong> (${clock.offsetMinutes === 0 ? t.realTime : t.minutesAhead(clock.offsetMinutes)})</p>
<form method="post" action="${dashboardUrls.clock}">
<label for="clock-minutes">${t.advanceLabel}</label>
<div class="dash-row">
<input id="clock-minutes" name="minutes" type="number" min="1" step="1" required value="60">
<button type="submit">${t.advance}</button>
</div>
</form>
</section>
</div>
${renderFiguresCard(t.figures, figures)}
<section aria-labelledby="orders-heading">
<h2 id="orders-heading">${t.ordersHeading}</h2>
${list}
</section>
<section aria-labelledby="merchants-heading">
<h2 id="merchants-heading">${t.merchantsHeading}</h2>
${merchants.length === 0 ? html`<p>${t.noMerchants}</p>` : html`<ul>${merchantItems}</ul>`}
</section>`;
}
